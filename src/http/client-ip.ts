import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';

/**
 * The peer address, read from the Node socket (what @hono/node-server's getConnInfo reads, without
 * building its object on every request); `app.request()` in tests has none.
 */
export function clientIp(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? '127.0.0.1';
}
