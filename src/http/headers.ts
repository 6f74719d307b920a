// Reading a request header. Under @hono/node-server, `c.req.header(name)` builds a WHATWG Headers
// object from every raw header of the request on first use (validating each one), which cost
// more than a tenth of a GET (`npm run bench -- api`); the hot path reads the few headers it needs
// from the Node request's raw header list instead. Same answer as Headers#get: names compared
// without case, repeated headers joined with ", ", surrounding whitespace trimmed.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';

/** `name` in lower case */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    if (key.length === name.length && key.toLowerCase() === name) value = value === undefined ? trim(raw[i + 1]) : `${value}, ${trim(raw[i + 1])}`;
  }
  return value;
}

// HTTP whitespace (Fetch: tab, LF, CR, space); Node's parser has already dropped most of it
const isSpace = (code: number) => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
const trim = (v: string) => (v && (isSpace(v.charCodeAt(0)) || isSpace(v.charCodeAt(v.length - 1))) ? v.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '') : v);
