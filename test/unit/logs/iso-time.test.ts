// The access log's timestamp (src/http/access-log.ts isoTime) is toISOString() of the clock's
// time, though it formats only each new second in full.
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../src/http/access-log.js';

const same = (ms: number) => expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());

describe('access log timestamps', () => {
  it('are toISOString() of the time, within a second, across seconds and back again', () => {
    const start = Date.UTC(2026, 10, 27, 9, 59, 59, 990);
    for (let ms = start; ms < start + 2_100; ms += 7) same(ms);
    // a clock that goes back, repeats, or jumps
    for (const ms of [start + 5, start + 5, start - 86_400_000, start + 1, start + 1000, start + 999]) same(ms);
  });

  it('pad the milliseconds (.000, .007, .070) and hold before 1970 and past 9999', () => {
    for (const ms of [0, 7, 70, 700, 999, 1000, -1, -999, -1000, -1001, 253402300799999, 253402300800000, -62198755200000, -8.64e15, 8.64e15]) same(ms);
  });
});
