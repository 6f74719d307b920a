// A webhook receiver written from docs/webhooks.md#verifying-signatures alone, on a real node:http server on 127.0.0.1. It
// checks every request's X-Service-Signature with its own HMAC (not the service's code): the
// message is the webhook URL exactly as configured immediately followed by the exact body bytes,
// keyed with the webhook key, hex-encoded. Each test's receivers are closed when it finishes.
import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { eventually } from '../../helpers/wait.js';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
  /** the docs/webhooks.md#verifying-signatures check with the key the receiver was given */
  verified: boolean;
  time: number;
}

/** docs/webhooks.md#verifying-signatures, independently: hex(HMAC-SHA256(key, url ‖ body)) */
export function specSignature(key: string, url: string, body: Buffer): string {
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(url, 'utf8'), body]))
    .digest('hex');
}

export type Reply = (r: Received, res: http.ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** the key (and the URL as configured) the receiver checks signatures with */
  trust(key: string, url?: string): void;
  /** how to answer; the default is 200 `ok` */
  reply(fn: Reply): void;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const received: Received[] = [];
  let key = '';
  let signedUrl = '';
  let reply: Reply = (_r, res) => res.end('ok');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      // a sender killed mid-body (the crash test) leaves a request that never completed: not a delivery
      if (!req.complete) return;
      const raw = Buffer.concat(chunks);
      let body: unknown = raw.toString('utf8');
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        // not JSON: keep the text
      }
      const sig = req.headers['x-service-signature'];
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        body,
        verified: typeof sig === 'string' && key !== '' && sig === specSignature(key, signedUrl, raw),
        time: Date.now(),
      };
      received.push(r);
      reply(r, res);
    });
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}${path}`;
  signedUrl = url;
  let closed = false;
  const close = () =>
    closed
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          closed = true;
          server.closeAllConnections();
          server.close(() => resolve());
        });
  onTestFinished(close);
  return {
    url,
    port,
    received,
    trust(k, u) {
      key = k;
      if (u) signedUrl = u;
    },
    reply(fn) {
      reply = fn;
    },
    close,
  };
}

// Webhook waits span a worker thread starting and a delivery round trip, so their floor is 30 s
// (the webhook suites give their tests the time); the polling is the suite's one helper.
const WEBHOOK_MIN_WAIT_MS = 30_000;

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = WEBHOOK_MIN_WAIT_MS, what = 'condition'): Promise<void> {
  await eventually(cond, timeoutMs, what, WEBHOOK_MIN_WAIT_MS);
}
