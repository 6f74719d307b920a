// The process log's formats (HEARTH_LOG_FORMAT): JSON lines by default, human-readable lines on a
// terminal or when asked, and the sampled warn about dropped publishes (one line per reason per
// window, with the count since the last one). Real pino writing into a collecting output.
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createLogger, type LogOutput } from '../../../src/adapters/log/logger.js';
import { DropLog } from '../../../broker/limits/drop-log.js';

function output(isTTY?: boolean): LogOutput & { lines: string[] } {
  const lines: string[] = [];
  return { isTTY, lines, write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) };
}

describe('log format', () => {
  it('writes JSON lines when not on a terminal (auto) and when asked (json)', () => {
    for (const [format, isTTY] of [
      ['auto', false],
      ['json', true],
    ] as const) {
      const out = output(isTTY);
      createLogger({ level: 'info', format }, out).info({ deviceId: 12 }, 'device connected');
      expect(out.lines).toHaveLength(1);
      expect(JSON.parse(out.lines[0])).toMatchObject({ level: 30, msg: 'device connected', deviceId: 12 });
    }
  });

  it('writes one readable line per record when asked (pretty): time, level, message, fields', () => {
    const out = output(false);
    const log = createLogger({ level: 'debug', format: 'pretty' }, out);
    log.info('HTTP API on http://127.0.0.1:8080');
    log.debug({ deviceId: 12, transport: 'mqtt' }, 'device 12 connected (mqtt)');
    log.warn({ reason: 'payload', dropped: 3, note: 'two words' }, 'dropped 3 MQTT publishes');
    expect(out.lines).toEqual([
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} INFO  HTTP API on http:\/\/127\.0\.0\.1:8080$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} DEBUG device 12 connected \(mqtt\)  deviceId=12 transport=mqtt$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d\.\d{3} WARN  dropped 3 MQTT publishes  reason=payload dropped=3 note="two words"$/),
    ]);
    // no colour codes when the output is not a terminal
    expect(out.lines.join('')).not.toContain('\x1b[');
  });

  it('is readable and coloured on a terminal by default (auto), with an error stack below the line', () => {
    const out = output(true);
    createLogger({ level: 'info', format: 'auto' }, out).error({ err: new Error('boom') }, 'start-up failed');
    expect(out.lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \x1b\[31mERROR\x1b\[0m start-up failed  err=boom$/);
    expect(out.lines[1]).toMatch(/^ {4}Error: boom$/);
    expect(out.lines[2]).toMatch(/^ {8}at /);
  });

  it('respects the level in both formats', () => {
    for (const format of ['json', 'pretty'] as const) {
      const out = output(false);
      const log = createLogger({ level: 'info', format }, out);
      log.debug('hidden');
      log.info('shown');
      expect(out.lines).toHaveLength(1);
      expect(out.lines[0]).toContain('shown');
    }
  });
});

describe('dropped publishes in the process log', () => {
  it('writes the first drop of a reason at once, then at most one line per window with the count since', () => {
    const out = output(false);
    const drops = new DropLog(pino({ level: 'info' }, { write: (l: string) => void out.write(l) }), 10_000);
    const t0 = 1_000_000;
    drops.dropped('payload', () => 'device 1 to /devices/1/event: payload is not JSON', t0);
    for (let i = 1; i <= 4; i++) drops.dropped('payload', () => `device 1 #${i}`, t0 + i * 1000);
    // another reason has a window of its own
    drops.dropped('rate_limit', () => 'device 2 to /devices/2/event: too fast', t0 + 5000);
    drops.dropped('payload', () => 'device 3 to /devices/3/event: payload must be a JSON object', t0 + 10_000);
    const lines = out.lines.map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.level, l.reason, l.dropped])).toEqual([
      [40, 'payload', 1],
      [40, 'rate_limit', 1],
      [40, 'payload', 5],
    ]);
    expect(lines[0].msg).toBe('dropped 1 MQTT publish (payload); latest: device 1 to /devices/1/event: payload is not JSON');
    expect(lines[2].msg).toBe('dropped 5 MQTT publishes (payload) in the last 10 s; latest: device 3 to /devices/3/event: payload must be a JSON object');
  });
});
