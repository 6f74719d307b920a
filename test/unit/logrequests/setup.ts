// A test API (real SQLite, app.request) with file storage in a temp directory and small log
// upload limits, so multi-part uploads take a few bytes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { createFsBlobStore } from '../../../src/adapters/fs/blob-store.js';
import { seedDevice } from '../../helpers/store-seed.js';

export const LIMITS = { maxFileBytes: 4096, partBytes: 1000, uploadTtlSeconds: 60 };

export async function makeLogApi(limits = LIMITS): Promise<TestApi & { blobDir: string }> {
  const t = await makeTestApi();
  const blobDir = mkdtempSync(join(tmpdir(), 'hearth-blobs-'));
  t.deps.blobs = createFsBlobStore(blobDir);
  t.deps.logUploads = limits;
  return {
    ...t,
    blobDir,
    async close() {
      await t.close();
      rmSync(blobDir, { recursive: true, force: true });
    },
  };
}

/** deterministic bytes of any length */
export function bytes(n: number, seed = 7): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

export async function putRaw(t: TestApi, url: string, body: Uint8Array, method = 'PUT'): Promise<{ status: number; body: any }> {
  const res = await t.app.request(new URL(url).pathname, { method, body, headers: { 'content-type': 'application/octet-stream' } });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export const pathOf = (url: string) => new URL(url).pathname;

/** a device with a request open on it, ready for an upload */
export async function openRequest(t: TestApi, body: unknown = {}) {
  const { device, key } = await seedDevice(t.deps);
  const res = await t.req('POST', `/devices/${device.id}/logRequests`, { token: t.adminKey, body });
  if (res.status !== 201) throw new Error(`create answered ${res.status} ${JSON.stringify(res.body)}`);
  return { device, deviceKey: key, request: res.body as { id: string; token: string; status: string } };
}

/** starts an upload session of `size` bytes */
export async function startSession(t: TestApi, token: string, size: number, extra: Record<string, unknown> = {}) {
  const res = await t.req('POST', `/deviceLogger/${token}`, { body: { size, contentType: 'text/plain', filename: 'device.log', ...extra } });
  if (res.status !== 201) throw new Error(`start answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { uploadId: string; numOfParts: number; partSize: number; urls: string[] };
}
