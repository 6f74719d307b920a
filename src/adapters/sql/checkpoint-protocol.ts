// What the checkpointer (checkpointer.ts) and its thread (checkpoint-thread.ts) say to each other.

export interface CheckpointerData {
  /** the database file (WAL mode) */
  file: string;
  /** the main connection's synchronous: a checkpoint syncs the WAL before it copies and the database after, with either */
  synchronous: 'full' | 'normal';
}

export type ToCheckpointer = { id: number } | { close: true };

export type FromCheckpointer =
  | {
      id: number;
      /** frames in the WAL at the first pass (since the writer last started it over) */
      log: number;
      /** frames in the WAL at the last pass, and of them not yet copied into the database */
      end: number;
      left: number;
      /** passes run: the first, then catch-ups while frames came in meanwhile */
      passes: number;
      /** SQLite could not checkpoint at all (another checkpoint under way) */
      busy: boolean;
      /** the thread's time in the passes, ms */
      ms: number;
    }
  | { id: number; error: string; code?: string }
  | { closed: true };
