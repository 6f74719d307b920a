// docs/api.md#conventions nesting limit (src/domain/json-depth.ts): judged on the text, without recursion;
// brackets inside strings do not count; the path names keys and indices like validation issues.
import { describe, expect, it } from 'vitest';
import { jsonTextDepthIssue, parseJsonBounded, valueDepthIssue } from '../../../src/domain/json-depth.js';
import { AppError } from '../../../src/domain/errors.js';

describe('jsonTextDepthIssue', () => {
  it('allows exactly the limit and refuses one more, naming the path', () => {
    expect(jsonTextDepthIssue('{"a":{"b":1}}', 2)).toBeUndefined();
    expect(jsonTextDepthIssue('{"a":{"b":{"c":1}}}', 2)).toEqual({ path: 'a.b', message: 'nested deeper than 2 levels' });
    expect(jsonTextDepthIssue('[1,[2,3,[4]]]', 2)).toEqual({ path: '1.2', message: 'nested deeper than 2 levels' });
    expect(jsonTextDepthIssue('[[]]', 1)).toEqual({ path: '0', message: 'nested deeper than 1 levels' });
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonTextDepthIssue(JSON.stringify({ s: '[[[[{{{{"\\"[[[' }), 1)).toBeUndefined();
    expect(jsonTextDepthIssue('{"a\\"b":{"x":[]}}', 2)).toEqual({ path: 'a\\"b.x', message: 'nested deeper than 2 levels' });
  });

  it('sibling containers do not add up; keys after a closed container are named right', () => {
    expect(jsonTextDepthIssue('{"a":{},"b":{},"c":[[],[]]}', 3)).toBeUndefined();
    expect(jsonTextDepthIssue('{"a":{},"b":{"c":{"d":{}}}}', 3)).toEqual({ path: 'b.c.d', message: 'nested deeper than 3 levels' });
  });

  it('counts openers of both kinds and in strings only to let a text through early: one past the limit in all is judged by its nesting', () => {
    // exactly the limit of openers, nested: through without the nesting pass
    expect(jsonTextDepthIssue('{"a":[{"b":1}]}', 3)).toBeUndefined();
    // one more than the limit, mixed kinds: refused only when they are nested that deep
    expect(jsonTextDepthIssue('{"a":[{"b":[]}]}', 3)).toEqual({ path: 'a.0.b', message: 'nested deeper than 3 levels' });
    expect(jsonTextDepthIssue('[{"a":[]},{"b":{}}]', 3)).toBeUndefined();
    // openers in strings push the count past the limit; the nesting pass still skips them
    expect(jsonTextDepthIssue(JSON.stringify({ s: '{{{{[[[[', t: [{}] }), 3)).toBeUndefined();
    expect(jsonTextDepthIssue(JSON.stringify({ s: '{{{{[[[[', t: [{ u: [] }] }), 3)).toEqual({ path: 't.0.u', message: 'nested deeper than 3 levels' });
    // a large shallow body: 100 objects, four levels
    expect(jsonTextDepthIssue(JSON.stringify({ eventType: 'x', eventData: { rows: Array.from({ length: 100 }, (_, i) => ({ i })) } }), 4)).toBeUndefined();
  });

  it('1,000,000 levels: one pass, no stack overflow', () => {
    const text = '['.repeat(1_000_000) + ']'.repeat(1_000_000);
    expect(jsonTextDepthIssue(text, 32)?.path).toBe(Array(32).fill('0').join('.'));
  });

  it('parseJsonBounded: INVALID_PARAMETERS with the issue and the limit, or the value', () => {
    expect(parseJsonBounded('{"a":[1]}', 32)).toEqual({ a: [1] });
    try {
      parseJsonBounded('[[[[1]]]]', 3);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).data).toEqual({ issues: [{ path: '0.0.0', message: 'nested deeper than 3 levels' }], limit: 3 });
    }
  });
});

describe('valueDepthIssue', () => {
  it('the same rule on a value, without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(valueDepthIssue(deep, 32)?.path).toBe(Array(32).fill('0').join('.'));
    expect(valueDepthIssue({ a: { b: 1 } }, 2)).toBeUndefined();
    expect(valueDepthIssue({ a: { b: { c: 1 } } }, 2)).toEqual({ path: 'a.b', message: 'nested deeper than 2 levels' });
    expect(valueDepthIssue('text', 1)).toBeUndefined();
  });
});
