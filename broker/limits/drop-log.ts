// The process log's view of dropped device publishes: one `warn` line per reason at most once a
// window, counting what was dropped for that reason since the previous line, so a device that
// floods cannot flood the log. The first drop of a reason is written at once. (Each drop still
// goes to the project's general log, throttled per device, and to the metrics.)
import type { Logger } from 'pino';

interface Pending {
  /** when the last line for this reason was written */
  at: number;
  /** drops since that line, not yet written */
  count: number;
}

export class DropLog {
  private readonly byReason = new Map<string, Pending>();

  constructor(
    private readonly logger: Logger,
    private readonly windowMs: number,
  ) {}

  /** `reason`: a short fixed word (bounded set); `example`: the latest drop, for the line */
  dropped(reason: string, example: () => string, now = Date.now()): void {
    let p = this.byReason.get(reason);
    if (!p) this.byReason.set(reason, (p = { at: -Infinity, count: 0 }));
    p.count++;
    if (now - p.at < this.windowMs) return;
    const seconds = p.at === -Infinity ? 0 : Math.round((now - p.at) / 1000);
    this.logger.warn(
      { reason, dropped: p.count },
      `dropped ${p.count} MQTT publish${p.count === 1 ? '' : 'es'} (${reason})${seconds ? ` in the last ${seconds} s` : ''}; latest: ${example()}`,
    );
    p.at = now;
    p.count = 0;
  }
}
