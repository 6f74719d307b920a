// Shared steps of the firmware tests (docs/firmware.md): a bundle with a component, raw uploads
// over node:http (so a body can be streamed without a length, and a refusal read while it is
// still being sent), and downloads as bytes.
import { request } from 'node:http';
import { expect } from 'vitest';
import type { TestHearth } from '../../helpers/hearth.js';

let n = 0;
export async function makeBundle(t: TestHearth, opts: { deviceClass?: string; components?: string[] } = {}): Promise<string> {
  const id = `fw-${process.pid}-${++n}`;
  const r = await t.http('POST', '/bundles', {
    token: t.adminKey,
    body: {
      id,
      projectId: 1,
      deviceClass: opts.deviceClass ?? 'default',
      components: (opts.components ?? ['main']).map((c) => ({ componentName: c, componentVersionName: '2.0.0' })),
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return id;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** a PUT of raw bytes; `chunks` streamed without Content-Length when `chunked` */
export function rawPut(
  t: TestHearth,
  path: string,
  token: string,
  chunks: Iterable<Buffer>,
  opts: { chunked?: boolean; length?: number } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `ModeCloud ${token}`, 'content-type': 'application/octet-stream' };
    if (opts.length !== undefined) headers['content-length'] = String(opts.length);
    const req = request({ host: '127.0.0.1', port: t.httpPort, method: 'PUT', path, headers });
    let answered = false;
    req.on('response', (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts) });
        // answered before the whole body was sent: this request is over
        if (!req.writableFinished) req.destroy();
      });
    });
    // the server may answer (and close) before the whole body is sent: that is the answer
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    const it = chunks[Symbol.iterator]();
    const pump = () => {
      for (;;) {
        if (answered || req.destroyed) return;
        const next = it.next();
        if (next.done) return void req.end();
        if (!req.write(next.value)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

export async function download(
  t: TestHearth,
  path: string,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(t.httpUrl + path, { headers: { ...headers, ...(token ? { authorization: `ModeCloud ${token}` } : {}) } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

export const filePath = (bundleId: string, component = 'main') => `/bundles/${bundleId}/components/${encodeURIComponent(component)}/file`;
