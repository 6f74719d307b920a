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
 * the nesting is judged here. Keys are kept as their place in the text and cut out only to name
 * the path of a text refused: every event payload passes here, and a copy of each of its strings
 * was most of what this cost.
 */
export function jsonTextDepthIssue(text: string, limit: number): DepthIssue | undefined {
  return deeperThan(text, limit) ? depthIssueWithPath(text, limit) : undefined;
}

/**
 * Whether the text opens more than `limit` containers inside one another (strings honoured as below):
 * one pass with a counter, nothing allocated. Text within the limit, which is every event
 * payload but a refused one, stops here; the three stacks of the path below cost about 550 bytes
 * of garbage per MQTT event.
 */
function deeperThan(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
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
  // one frame per open container: an array's current index, or an object's current key as
  // where it starts and ends in the text (-1: none yet)
  const at: number[] = [];
  const ends: number[] = [];
  const isArray: boolean[] = [];
  // the last string seen (it may be a key)
  let lastStart = -1;
  let lastEnd = -1;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // a string: find its end, honouring escapes
      const start = i + 1;
      let escaped = false;
      for (i = start; i < n; i++) {
        const d = text.charCodeAt(i);
        if (escaped) escaped = false;
        else if (d === 0x5c /* \ */) escaped = true;
        else if (d === 0x22) break;
      }
      lastStart = start;
      lastEnd = i;
      continue;
    }
    const top = at.length - 1;
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (at.length >= limit) return { path: pathOf(text, at, ends, isArray, limit), message: message(limit) };
      at.push(c === 0x5b ? 0 : -1);
      ends.push(-1);
      isArray.push(c === 0x5b);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      at.pop();
      ends.pop();
      isArray.pop();
    } else if (c === 0x3a /* : */ && top >= 0 && !isArray[top]) {
      at[top] = lastStart;
      ends[top] = lastEnd;
    } else if (c === 0x2c /* , */ && top >= 0 && isArray[top]) {
      at[top]++;
    }
  }
  return undefined;
}

/** the path of the first `limit` frames: indices, and keys (short, and unescaped the cheap way) */
function pathOf(text: string, at: number[], ends: number[], isArray: boolean[], limit: number): string {
  const keys: (string | number)[] = [];
  for (let f = 0; f < limit; f++) {
    if (isArray[f]) keys.push(at[f]);
    else if (at[f] < 0) keys.push('');
    else keys.push(ends[f] - at[f] <= 200 ? text.slice(at[f], ends[f]) : `${text.slice(at[f], at[f] + 200)}…`);
  }
  return keysPath(keys);
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
