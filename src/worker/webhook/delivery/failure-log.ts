// A receiver that refuses everything would put one general-log line per event in front of the
// operator. One line per webhook per window is enough to act on; the lines held back are counted
// and the count goes into the next line written. Bounded: old keys are forgotten.
export class FailureLog {
  private readonly seen = new Map<string, { at: number; held: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** whether to write a line for this key now, and how many were held back since the last one */
  note(key: string, now = Date.now()): { write: boolean; held: number } {
    const s = this.seen.get(key);
    if (s && now - s.at < this.windowMs) {
      s.held++;
      return { write: false, held: s.held };
    }
    if (!s && this.seen.size >= this.maxKeys) this.seen.delete(this.seen.keys().next().value!);
    this.seen.set(key, { at: now, held: 0 });
    return { write: true, held: s?.held ?? 0 };
  }
}
