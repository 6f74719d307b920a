// Paging shared by every listing port (store repositories and the delivery queue): its own file
// so that src/ports/queue.ts and src/ports/store.ts need not import each other.

export interface Page {
  skip: number;
  limit: number;
}
export interface Paged<T> {
  items: T[];
  total: number;
}

/** a keyset cursor: rows strictly after (time, id) */
export interface TimeCursor {
  time: string;
  id: string;
}
