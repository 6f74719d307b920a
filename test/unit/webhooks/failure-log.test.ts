// A failing webhook puts one line per window in the general log, not one per event.
import { describe, expect, it } from 'vitest';
import { FailureLog } from '../../../src/worker/webhook/delivery/failure-log.js';

describe('failure log throttle', () => {
  it('writes one line per key per window and counts the ones held back', () => {
    const f = new FailureLog(1000);
    expect(f.note('a', 0)).toEqual({ write: true, held: 0 });
    expect(f.note('a', 10)).toEqual({ write: false, held: 1 });
    expect(f.note('a', 20)).toEqual({ write: false, held: 2 });
    expect(f.note('b', 20)).toEqual({ write: true, held: 0 });
    expect(f.note('a', 1001)).toEqual({ write: true, held: 2 });
    expect(f.note('a', 1002)).toEqual({ write: false, held: 1 });
  });
});
