// docs/timeseries.md#sending-points: points that are dropped (not a point, or a store that refused them)
// are counted per project, and the general log gets one line per project per window with the
// count since the last line: a gateway sending bad points every second fills no log.
import { LogThrottle } from '../log-throttle.js';

/** one line per project per minute at most */
export const DROPPED_LOG_WINDOW_MS = 60_000;

export class DroppedPoints {
  private readonly counts = new Map<number, { n: number; why: string }>();
  private readonly throttle: LogThrottle;

  constructor(windowMs = DROPPED_LOG_WINDOW_MS) {
    this.throttle = new LogThrottle(windowMs);
  }

  /**
   * Counts `n` dropped points of the project; returns the text of a general log line when one is
   * due (the count since the last line), else undefined.
   */
  add(projectId: number, n: number, why: string, now: number): string | undefined {
    const c = this.counts.get(projectId) ?? { n: 0, why };
    c.n += n;
    c.why = why;
    if (!this.throttle.allow(`tsdb:${projectId}`, now)) {
      // bounded like the throttle: a project that stays quiet is forgotten with its count
      if (this.counts.size < 10_000 || this.counts.has(projectId)) this.counts.set(projectId, c);
      return undefined;
    }
    this.counts.delete(projectId);
    return `tsdb: ${c.n} time-series point(s) dropped (${c.why}; docs/timeseries.md#sending-points). At most one such line a minute per project.`;
  }
}
