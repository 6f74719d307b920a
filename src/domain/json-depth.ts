// docs/api.md#conventions: JSON nested deeper than a configurable limit (default 32) is refused, naming the
// path, before anything recursive touches it. JSON.stringify, valibot, structured clones and
// V8's own JSON.parse all recurse: about 5,000 levels (30 KB) overflow the stack in one of them,
// and that is a 500 over HTTP or a dropped MQTT connection. Both checks here are loops with an
// explicit stack, so their cost is one pass and their depth is the limit, whatever the input.
import { AppError } from './errors.js';

/** the default of config `limits.jsonDepth` */
export const DEFAULT_JSON_DEPTH = 32;

export interface DepthIssue {
  /** keys and indices down to the first container past the limit, joined with `.` */
  path: string;
  message: string;
}

const message = (limit: number) => `nested deeper than ${limit} levels`;

/**
 * The raw text, before JSON.parse: counts `{` and `[` outside strings and keeps the path of keys
 * and indices. Text that is not JSON passes through (JSON.parse then says what is wrong); only
 * the nesting is judged here. A counter pass first; the path is kept only for a text refused:
 * every event payload passes here, and the path's stacks and key copies were most of what this
 * cost (about 550 bytes of garbage per MQTT event).
 */
export function jsonTextDepthIssue(text: string, limit: number): DepthIssue | undefined {
  return !fewOpeners(text, limit) && deeperThan(text, limit) ? depthIssueWithPath(text, limit) : undefined;
}

/**
 * whether the text holds at most `limit` `{` and `[` in all, strings included: then nothing in it
 * can be nested past the limit. String#indexOf scans natively, a few times faster than the
 * character loop of deeperThan on an event payload (two `{`: about 70 ns against 250, issue #26);
 * a text with more (large bodies, nested or not) costs at most one scan more than before.
 */
function fewOpeners(text: string, limit: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++n > limit) return false;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++n > limit) return false;
  return true;
}

/** the index of the `"` that ends the string starting at `start` (escapes honoured), or the text's length */
function stringEnd(text: string, start: number): number {
  const n = text.length;
  let escaped = false;
  let i = start;
  for (; i < n; i++) {
    const d = text.charCodeAt(i);
    if (escaped) escaped = false;
    else if (d === 0x5c /* \ */) escaped = true;
    else if (d === 0x22 /* " */) break;
  }
  return i;
}

/** whether the text opens more than `limit` containers inside one another: one pass with a counter, nothing allocated */
function deeperThan(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // a string, skipped whole (escapes honoured); written out here, not a call to stringEnd: this
      // pass runs over every event payload
      let escaped = false;
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (escaped) escaped = false;
        else if (d === 0x5c /* \ */) escaped = true;
        else if (d === 0x22) break;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > limit) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (depth > 0) depth--;
    }
  }
  return false;
}

/** the text's first container past the limit, with its path (deeperThan found one) */
function depthIssueWithPath(text: string, limit: number): DepthIssue | undefined {
  // one frame per open container: its current key (object) or index (array)
  const keys: (string | number)[] = [];
  const isArray: boolean[] = [];
  let lastString: string | undefined;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // a string: keep it (it may be a key); a key is only named in the path: short, and unescaped the cheap way
      const start = i + 1;
      i = stringEnd(text, start);
      lastString = i - start <= 200 ? text.slice(start, i) : `${text.slice(start, start + 200)}…`;
      continue;
    }
    const top = keys.length - 1;
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (keys.length >= limit) return { path: keysPath(keys.slice(0, limit)), message: message(limit) };
      keys.push(c === 0x5b ? 0 : '');
      isArray.push(c === 0x5b);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      keys.pop();
      isArray.pop();
    } else if (c === 0x3a /* : */ && top >= 0 && !isArray[top]) {
      keys[top] = lastString ?? '';
    } else if (c === 0x2c /* , */ && top >= 0 && isArray[top]) {
      keys[top] = (keys[top] as number) + 1;
    }
  }
  return undefined;
}

/** An already-parsed value (form bodies, values built in memory): the same rule, no recursion. */
export function valueDepthIssue(value: unknown, limit: number): DepthIssue | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  // [value, its depth, its path] waiting to be looked at
  const stack: [object, number, (string | number)[]][] = [[value, 1, []]];
  while (stack.length) {
    const [v, depth, path] = stack.pop()!;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, child] of entries) {
      if (child === null || typeof child !== 'object') continue;
      if (depth >= limit) return { path: keysPath([...path, k]), message: message(limit) };
      stack.push([child, depth + 1, [...path, k]]);
    }
  }
  return undefined;
}

function keysPath(keys: readonly (string | number)[]): string {
  return keys.map(String).join('.');
}

/** the 403 of docs/api.md#conventions: INVALID_PARAMETERS with the path, like any validation issue */
export function depthError(issue: DepthIssue, limit: number): AppError {
  return new AppError('INVALID_PARAMETERS', { issues: [issue], limit });
}

/** JSON text to a value, refusing nesting past the limit first; a text that is not JSON throws a SyntaxError */
export function parseJsonBounded(text: string, limit: number): unknown {
  const issue = jsonTextDepthIssue(text, limit);
  if (issue) throw depthError(issue, limit);
  return JSON.parse(text);
}
