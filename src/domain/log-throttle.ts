// A client can make the service want to log on every packet (over-rate publishes, refused
// connections, events of a device in no home). The general log gets one line per key per window;
// the rest go to the process log only, or nowhere. Bounded: old keys are forgotten as new ones come.
export class LogThrottle {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** true when a line for this key may be written now */
  allow(key: string, now = Date.now()): boolean {
    const t = this.last.get(key);
    if (t !== undefined && now - t < this.windowMs) return false;
    if (this.last.size >= this.maxKeys) this.prune(now);
    this.last.set(key, now);
    return true;
  }

  private prune(now: number): void {
    for (const [k, t] of this.last) if (now - t >= this.windowMs) this.last.delete(k);
    // still full of recent keys: forget the oldest half (Map keeps insertion order)
    if (this.last.size >= this.maxKeys) {
      let drop = this.last.size >> 1;
      for (const k of this.last.keys()) {
        if (drop-- <= 0) break;
        this.last.delete(k);
      }
    }
  }
}
