// SPEC 6.4: rendering advanced-mode webhook templates and building the request they describe.
// Pure: no I/O, no clock. The parser lives in template-parse.ts; this file re-exports it so the
// worker imports the whole template language from one place.

import { parseTemplate, TemplateError, type Segment, type Template } from './template-parse.js';

export { parseTemplate, TemplateError };
export type { Part, Segment, Template } from './template-parse.js';

export type RenderMode = 'body' | 'header';

export interface WebhookTemplates {
  headers?: Record<string, string>;
  body?: string;
}

export const INVALID_JSON_BODY = 'body is not valid JSON after substitution';

export function renderTemplate(t: Template, data: unknown, mode: RenderMode): string {
  let out = '';
  for (const part of t.parts) {
    out += part.kind === 'text' ? part.text : substitute(resolve(data, part.segments));
  }
  // SPEC 6.4.7: header values are escaped after substitution, literal text included.
  return mode === 'header' ? escapeHeaderValue(out) : out;
}

/** Checks every template of a module when it is saved, so a broken one is refused up front. */
export function validateTemplates(cfg: WebhookTemplates): void {
  checkHeaderNames(cfg.headers ?? {});
  for (const [name, value] of Object.entries(cfg.headers ?? {})) parseIn(value, `header "${name}"`);
  if (hasCustomBody(cfg)) parseIn(cfg.body, 'body');
}

/**
 * The headers and body to send for one delivery. Throws TemplateError when nothing may be sent
 * (SPEC 6.4.8, 6.4.9, SPEC 7.5). Signature headers are added by the caller, over this body.
 */
export function buildWebhookRequest(cfg: WebhookTemplates, payload: object): { headers: Record<string, string>; body: string } {
  const headers = renderHeaders(cfg.headers ?? {}, payload);
  if (!hasCustomBody(cfg)) return { headers, body: JSON.stringify(payload) };
  const body = renderTemplate(parseIn(cfg.body, 'body'), payload, 'body');
  if (bodyMustBeJson(headers)) assertJson(body);
  return { headers, body };
}

// SPEC 6.4.2: headers are templated in their values only; keys are sent as written.
function renderHeaders(templates: Record<string, string>, payload: object): Record<string, string> {
  checkHeaderNames(templates);
  const headers: Record<string, string> = {};
  let hasContentType = false;
  for (const [name, value] of Object.entries(templates)) {
    const rendered = renderTemplate(parseIn(value, `header "${name}"`), payload, 'header');
    if (name.toLowerCase() === 'content-type') {
      // An empty Content-Type is treated as not set: the default applies (SPEC 6.1.1).
      if (rendered.trim() === '') continue;
      hasContentType = true;
    }
    headers[name] = rendered;
  }
  if (!hasContentType) headers['Content-Type'] = 'application/json'; // SPEC 6.1.1
  return headers;
}

// An empty body template counts as no custom body (a cleared form field), so the SPEC 6.1 JSON goes.
function hasCustomBody(cfg: WebhookTemplates): cfg is WebhookTemplates & { body: string } {
  return typeof cfg.body === 'string' && cfg.body !== '';
}

function parseIn(src: string, where: string): Template {
  try {
    return parseTemplate(src);
  } catch (err) {
    throw err instanceof TemplateError ? err.in(where) : err;
  }
}

// RFC 9110 §5.6.2 token: the only characters a header name may hold. Template notation in a key
// is therefore refused rather than sent verbatim.
const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

function checkHeaderNames(headers: Record<string, string>): void {
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const where = `header name "${name}"`;
    if (name === '') throw new TemplateError('header name is empty', 0, where);
    for (let i = 0; i < name.length; i++) {
      if (!TOKEN_CHARS.includes(name[i])) throw new TemplateError('header name is not a valid HTTP token', i, where);
    }
    const lower = name.toLowerCase();
    if (seen.has(lower)) throw new TemplateError('header name given twice (names are case-insensitive)', 0, where);
    seen.add(lower);
  }
}

// SPEC 6.4.9: JSON when Content-Type is application/json (any parameters) or absent.
// Other JSON-based types (application/vnd.x+json) are "not explicitly application/json".
function bodyMustBeJson(headers: Record<string, string>): boolean {
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type');
  if (!entry) return true;
  return entry[1].split(';')[0].trim().toLowerCase() === 'application/json';
}

function assertJson(body: string): void {
  try {
    JSON.parse(body);
  } catch (err) {
    // V8 names the offset in most messages ("... at position 12"); otherwise blame the end.
    const match = /at position (\d+)/.exec(err instanceof Error ? err.message : '');
    throw new TemplateError(INVALID_JSON_BODY, match ? Number(match[1]) : body.length, 'body');
  }
}

// SPEC 6.4.4, 6.4.5: `.name` selects an own field of an object, `[n]` an element of an array.
// Anything else (a name on an array, an index on an object, past the end) is a missing node.
function resolve(data: unknown, segments: readonly Segment[]): unknown {
  let node: unknown = data;
  for (const seg of segments) {
    if (seg.kind === 'field') {
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, seg.name)) return undefined;
      node = (node as Record<string, unknown>)[seg.name];
    } else {
      if (!Array.isArray(node) || seg.index >= node.length) return undefined;
      node = node[seg.index];
    }
  }
  return node;
}

function substitute(node: unknown): string {
  if (node === undefined || typeof node === 'function' || typeof node === 'symbol') return ''; // SPEC 6.4.5
  if (typeof node === 'string') return node; // a leaf: plain text, no quotes
  if (typeof node === 'bigint') return node.toString();
  if (node === null || typeof node !== 'object') return JSON.stringify(node); // numbers, booleans, null
  // SPEC 6.4.6: a non-leaf becomes its JSON text, escaped to sit inside a JSON string literal.
  const json = JSON.stringify(node) as string | undefined; // undefined: a toJSON() that returns it
  return json === undefined ? '' : JSON.stringify(json).slice(1, -1);
}

const HEX = '0123456789ABCDEF';
const utf8 = new TextEncoder();

// SPEC 6.4.7: keep HTAB and visible ASCII; percent-encode (UTF-8) control characters, DEL and
// everything beyond ASCII. A lone surrogate encodes as U+FFFD. '%' itself is left alone, as
// API.md §9 names only control and non-ASCII characters.
export function escapeHeaderValue(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (code === 0x09 || (code >= 0x20 && code <= 0x7e)) {
      out += ch;
      continue;
    }
    for (const byte of utf8.encode(ch)) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}
