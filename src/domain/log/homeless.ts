// docs/concepts.md#homes: events of a device in no home reach no module, and the general log says so
// without a line per device (a fleet created without homes would bury every other warning). Per
// project: the first such device names itself at once (a newcomer learns why no webhook comes);
// every other device in no home that sends within the interval after it is counted, and one summary
// line at the interval's end gives the count and a few ids. While devices keep sending, one summary
// line per interval follows; an interval with none ends it. Per process (cluster: per node).
import type { HomelessEvents } from '../../ports/homeless.js';

/** ids a summary line names; the rest are counted */
export const SUMMARY_IDS = 5;
/** distinct devices remembered per project and interval; past it a device is counted once per event */
const MAX_REMEMBERED = 10_000;

interface Window {
  /** the device the interval's first line named, if it was opened by one */
  first?: number;
  seen: Set<number>;
  /** events of devices past MAX_REMEMBERED (not told apart) */
  overflow: number;
  timer: ReturnType<typeof setTimeout>;
}

export type HomelessLine = { projectId: number; text: string };

export class HomelessSummary implements HomelessEvents {
  private readonly windows = new Map<number, Window>();
  private readonly writes = new Set<Promise<void>>();

  constructor(
    private readonly intervalMs: number,
    private readonly write: (line: HomelessLine) => Promise<void>,
  ) {}

  /** an event of the device (in no home) was accepted: its line now, when it opens the project's interval */
  note(projectId: number, deviceId: number, eventType: string): Promise<void> {
    const w = this.windows.get(projectId);
    if (w) {
      if (deviceId === w.first || w.seen.has(deviceId)) return Promise.resolve();
      if (w.seen.size < MAX_REMEMBERED) w.seen.add(deviceId);
      else w.overflow++;
      return Promise.resolve();
    }
    this.open(projectId, deviceId);
    return this.track(
      this.write({
        projectId,
        text: `device ${deviceId} is in no home: its events (e.g. ${eventType}) are stored but reach no smart module or webhook (docs/webhooks.md#event-webhook needs homeId); add the device to a home. Other devices in no home are counted in one line per ${span(this.intervalMs)}.`,
      }),
    );
  }

  /** stops the timers; the summaries due are written now (before the store closes) */
  async close(): Promise<void> {
    for (const [projectId, w] of this.windows) {
      clearTimeout(w.timer);
      this.windows.delete(projectId);
      const line = this.summary(projectId, w);
      if (line) this.track(this.write(line));
    }
    await Promise.all(this.writes);
  }

  private open(projectId: number, first?: number): void {
    const timer = setTimeout(() => this.end(projectId), this.intervalMs);
    timer.unref?.();
    this.windows.set(projectId, { first, seen: new Set(), overflow: 0, timer });
  }

  private end(projectId: number): void {
    const w = this.windows.get(projectId);
    if (!w) return;
    this.windows.delete(projectId);
    const line = this.summary(projectId, w);
    if (!line) return;
    // devices still sending are counted in the next interval's line, not each named again at once
    this.open(projectId);
    this.track(this.write(line));
  }

  private summary(projectId: number, w: Window): HomelessLine | undefined {
    const n = w.seen.size + w.overflow;
    if (n === 0) return undefined;
    const ids = [...w.seen].slice(0, SUMMARY_IDS);
    const rest = n - ids.length;
    return {
      projectId,
      text: `${n} ${n === 1 ? 'device' : 'devices'} in no home sent events in the last ${span(this.intervalMs)}: ${ids.join(', ')}${rest > 0 ? ` and ${rest} more` : ''}. Their events are stored but reach no smart module or webhook (docs/webhooks.md#event-webhook needs homeId); add them to a home.`,
    };
  }

  private track(p: Promise<void>): Promise<void> {
    const done = p.catch(() => undefined).finally(() => this.writes.delete(done));
    this.writes.add(done);
    return done;
  }
}

/** an interval in words: `hour`, `10 min`, `5 s` */
function span(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s === 3600) return 'hour';
  if (s % 3600 === 0) return `${s / 3600} h`;
  if (s % 60 === 0) return `${s / 60} min`;
  return `${s} s`;
}
