// Fleet figures (docs/api.md#fleet-figures): per-minute counters kept as things happen, never
// computed from the histories they count, so reading them costs the same at any fleet size.

/** what a per-minute counter counts */
export type StatCounter = 'events' | 'deliveriesSucceeded' | 'deliveriesFailed';

/** `minute` is the UTC minute as 'YYYY-MM-DDTHH:MM' (the first 16 characters of an RFC 3339 time) */
export interface StatCount {
  projectId: number;
  counter: StatCounter;
  minute: string;
  n: number;
}

export interface StatsRepo {
  /** adds each count to its counter: one upsert for all, in the caller's transaction when bound to one */
  add(counts: StatCount[]): Promise<void>;
  /** the project's counters for minutes from `from` to `to`, both included */
  minutes(projectId: number, from: string, to: string): Promise<StatCount[]>;
  /** at most `limit` counter rows of minutes before `before` (retention) */
  prune(before: string, limit: number): Promise<number>;
}

/** the counter minute of an RFC 3339 UTC time */
export const minuteOf = (time: string): string => time.slice(0, 16);

/** adds `n` to the count of (projectId, counter, minute) in `into`: a scan of the few counts of one batch */
export function tally(into: StatCount[], projectId: number, counter: StatCounter, minute: string, n = 1): void {
  for (const c of into) {
    if (c.projectId === projectId && c.minute === minute && c.counter === counter) {
      c.n += n;
      return;
    }
  }
  into.push({ projectId, counter, minute, n });
}
