// Reading a request body as text. Under @hono/node-server, `c.req.text()` first builds a full
// WHATWG Request around the Node request (Headers, an AbortController, a ReadableStream over
// Readable.toWeb) and then reads that stream back out: more than a third of the CPU of a
// `PUT /devices/{id}/event` (`BENCH_PROFILE=… npm run bench -- webhooks`). A body whose size the
// edge has judged from its Content-Length is read from the Node request directly instead, as
// headers.ts reads headers. Same text as Body#text: UTF-8, a leading BOM dropped, malformed bytes
// as U+FFFD (TextDecoder's defaults are the Fetch rules).
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import { requestHeader } from './headers.js';

const utf8 = new TextDecoder();

/** `rawBody` is where @hono/node-server looks for a body already read, should a Request be built later */
type Incoming = IncomingMessage & { rawBody?: unknown };

/** Hono has read (or begun reading) the body already */
function started(bodyCache: object): boolean {
  for (const _ in bodyCache) return true;
  return false;
}

export function requestText(c: Context): Promise<string> {
  const incoming = (c.env as { incoming?: Incoming } | undefined)?.incoming;
  if (incoming?.rawBody instanceof Buffer) return Promise.resolve(utf8.decode(incoming.rawBody));
  // Only when nobody has started on the body: a streamed body (no Content-Length) is counted by
  // the edge's body limit through c.req.raw, and must be read through it.
  if (
    !incoming ||
    typeof incoming.on !== 'function' ||
    requestHeader(c, 'content-length') === undefined ||
    requestHeader(c, 'transfer-encoding') !== undefined ||
    incoming.readableDidRead ||
    incoming.readableFlowing !== null ||
    started(c.req.bodyCache)
  ) {
    return c.req.text();
  }
  // listeners left in place: the request object is done with once its body has ended
  const body = new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => void chunks.push(chunk));
    incoming.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    incoming.on('error', reject);
    // the client went away before the whole body came
    incoming.on('close', () => {
      if (!incoming.complete) reject(new Error('the request body was not received in full (the client closed the connection)'));
    });
  });
  const text = body.then((buf) => {
    // kept for whoever reads the body again, through Hono (bodyCache) or a Request built later
    incoming.rawBody = buf;
    return utf8.decode(buf);
  });
  (c.req.bodyCache as Record<string, Promise<unknown>>).text = text;
  return text;
}
