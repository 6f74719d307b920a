// docs/concepts.md#events's eventType pattern is checked in an equivalent linear-time form: both agree on every
// string, and hostile input does not backtrack.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { EVENT_TYPE_PATTERN, EventBodySchema, EventTypeSchema, isEventBody } from '../../../src/domain/event/schemas.js';
import { ACTION_PATTERN } from '../../../src/domain/command/schemas.js';

const alphabet = ['a', 'Z', '0', '9', '-', '_', '.', ' ', 'é'];

function* strings(maxLen: number): Generator<string> {
  yield '';
  let level = [''];
  for (let n = 1; n <= maxLen; n++) {
    const next: string[] = [];
    for (const s of level) for (const c of alphabet) next.push(s + c);
    yield* next;
    level = next;
  }
}

describe('eventType', () => {
  it('accepts exactly what the documented pattern accepts (every string up to 4 characters)', () => {
    for (const s of strings(4)) expect(v.is(EventTypeSchema, s), JSON.stringify(s)).toBe(EVENT_TYPE_PATTERN.test(s));
  });

  it('rejects a long hostile string at once', () => {
    // a much larger input against a much looser bound, so a busy machine does not fail it: at
    // 500,000 characters a linear match takes milliseconds, a backtracking (quadratic or worse)
    // one minutes
    const start = performance.now();
    expect(v.is(EventTypeSchema, 'a'.repeat(500_000) + '!')).toBe(false);
    expect(performance.now() - start).toBeLessThan(2_000);
  });
});

describe('event body', () => {
  it('isEventBody (the ingest path, without valibot) accepts exactly what EventBodySchema accepts', () => {
    const types: unknown[] = ['t', 'benchReading', 'a-b_c', '_x_', '-a', 'a--b', '', 'a b', 1, null, undefined, ['a'], { a: 1 }];
    const data: unknown[] = [{}, { a: 1 }, Object.create(null), [], [1], null, undefined, 'x', 0, true];
    const bodies: unknown[] = [null, undefined, 'x', 3, [], [{ eventType: 'a', eventData: {} }], {}];
    for (const eventType of types) for (const eventData of data) bodies.push({ eventType, eventData }, { eventType, eventData, extra: 1 });
    bodies.push({ eventType: 'a' }, { eventData: {} });
    for (const b of bodies) expect(isEventBody(b), String(JSON.stringify(b))).toBe(v.is(EventBodySchema, b));
  });
});

describe('command action (docs/concepts.md#commands)', () => {
  it('needs three characters of [0-9a-z_-], not starting or ending with - or _', () => {
    for (const ok of ['abc', 'a-b', 'turn_on', '0x1']) expect(ACTION_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['ab', '-ab', 'ab-', 'Abc', 'a b', '']) expect(ACTION_PATTERN.test(bad), bad).toBe(false);
  });
});
