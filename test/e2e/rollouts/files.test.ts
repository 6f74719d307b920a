// Firmware files (docs/firmware.md#files, #downloading): an upload is stored byte for byte with its
// sha256 and sets the component's url and checksum; downloads answer the bytes with the ETag,
// If-None-Match, and one Range (206) so a download resumes; a device of another class is told the
// bundle does not exist; past limits.firmwareFileBytes nothing is kept; a bundle a running
// rollout brings cannot be deleted.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { download, filePath, makeBundle, rawPut } from './helpers.js';
import { MIN_WAIT_MS } from '../../helpers/wait.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** the files under the data directory's firmware blobs, temporary ones included */
function firmwareBlobs(bundleId: string): string[] {
  const dir = join(t.dataDir, 'blobs', 'firmware', bundleId);
  return existsSync(dir) ? readdirSync(dir) : [];
}

describe('firmware files', () => {
  it('stores an upload byte for byte, sets url and checksum, and serves it with ETag, If-None-Match and Range', async () => {
    const bundleId = await makeBundle(t, { components: ['main', 'radio fw'] });
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const chunks = Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536));
    const up = await rawPut(t, filePath(bundleId, 'radio fw'), t.adminKey, chunks, { chunked: true });
    expect(up.status, up.body.toString()).toBe(201);
    const answer = JSON.parse(up.body.toString());
    expect(answer).toEqual({ componentName: 'radio fw', size: bytes.length, sha256: sha(bytes), url: `${t.httpUrl}${filePath(bundleId, 'radio fw')}` });
    const bundle = await t.http('GET', `/bundles/${bundleId}`, { token: t.adminKey });
    expect(bundle.body.components).toEqual([
      { componentName: 'main', componentVersionName: '2.0.0' },
      { componentName: 'radio fw', componentVersionName: '2.0.0', url: answer.url, checksum: `sha256:${sha(bytes)}` },
    ]);

    const device = await t.seedDevice();
    const whole = await download(t, filePath(bundleId, 'radio fw'), device.key);
    expect(whole.status).toBe(200);
    expect(whole.body.equals(bytes)).toBe(true);
    expect(whole.headers.get('etag')).toBe(`"${sha(bytes)}"`);
    expect(whole.headers.get('content-length')).toBe(String(bytes.length));
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect((await download(t, filePath(bundleId, 'radio fw'), t.adminKey)).body.equals(bytes)).toBe(true);

    const same = await download(t, filePath(bundleId, 'radio fw'), device.key, { 'if-none-match': `"${sha(bytes)}"` });
    expect(same.status).toBe(304);
    expect(same.body.length).toBe(0);
    const other = await download(t, filePath(bundleId, 'radio fw'), device.key, { 'if-none-match': '"0000"' });
    expect(other.status).toBe(200);

    // an interrupted download resumes where it stopped
    const cut = 1_000_003;
    const rest = await download(t, filePath(bundleId, 'radio fw'), device.key, { range: `bytes=${cut}-` });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes ${cut}-${bytes.length - 1}/${bytes.length}`);
    expect(rest.headers.get('content-length')).toBe(String(bytes.length - cut));
    expect(Buffer.concat([whole.body.subarray(0, cut), rest.body]).equals(bytes)).toBe(true);
    const middle = await download(t, filePath(bundleId, 'radio fw'), device.key, { range: 'bytes=10-19' });
    expect(middle.status).toBe(206);
    expect(middle.body.equals(bytes.subarray(10, 20))).toBe(true);
    const tail = await download(t, filePath(bundleId, 'radio fw'), device.key, { range: 'bytes=-5' });
    expect(tail.body.equals(bytes.subarray(bytes.length - 5))).toBe(true);

    const outside = await download(t, filePath(bundleId, 'radio fw'), device.key, { range: `bytes=${bytes.length}-` });
    expect(outside.status).toBe(416);
    expect(JSON.parse(outside.body.toString())).toMatchObject({ reason: 'RANGE_NOT_SATISFIABLE', data: { size: bytes.length } });
    const malformed = await download(t, filePath(bundleId, 'radio fw'), device.key, { range: 'bytes=abc' });
    expect(malformed.status).toBe(416);

    // a component without a file, and one that does not exist
    expect((await download(t, filePath(bundleId, 'main'), device.key)).status).toBe(404);
    expect((await download(t, filePath(bundleId, 'nope'), device.key)).status).toBe(404);
  });

  it('replaces a file and keeps only the new one', async () => {
    const bundleId = await makeBundle(t);
    const first = randomBytes(1000);
    const second = randomBytes(2000);
    expect((await rawPut(t, filePath(bundleId), t.adminKey, [first], { length: first.length })).status).toBe(201);
    expect((await rawPut(t, filePath(bundleId), t.adminKey, [second], { length: second.length })).status).toBe(201);
    expect((await download(t, filePath(bundleId), t.adminKey)).body.equals(second)).toBe(true);
    expect(firmwareBlobs(bundleId)).toHaveLength(1);
  });

  it('refuses a device of another class, uploads by a device, and anyone without a credential', async () => {
    const bundleId = await makeBundle(t);
    const bytes = randomBytes(100);
    expect((await rawPut(t, filePath(bundleId), t.adminKey, [bytes], { length: 100 })).status).toBe(201);
    const mine = await t.seedDevice();
    expect((await download(t, filePath(bundleId), mine.key)).status).toBe(200);
    const stranger = await t.seedDevice({ deviceClass: 'sensor' });
    const refused = await download(t, filePath(bundleId), stranger.key);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ reason: 'BUNDLE_NOT_FOUND' });
    const byDevice = await rawPut(t, filePath(bundleId), mine.key, [bytes], { length: 100 });
    expect(byDevice.status).toBe(403);
    expect((await download(t, filePath(bundleId), undefined)).status).toBe(401);
    const noKey = await rawPut(t, filePath(bundleId), 'pk.nothing', [bytes], { length: 100 });
    expect(noKey.status).toBe(401);
  });

  it('refuses a file past 64 MiB, declared or streamed, with an answer the client reads, and keeps nothing of it', { timeout: 120_000 }, async () => {
    const bundleId = await makeBundle(t);
    const kept = randomBytes(5000);
    expect((await rawPut(t, filePath(bundleId), t.adminKey, [kept], { length: kept.length })).status).toBe(201);
    const limit = 64 * 1024 * 1024;
    const refusal = { reason: 'BODY_TOO_LARGE', data: { limit } };
    const mib = Buffer.alloc(1024 * 1024, 7);
    /** 1 MiB chunks, `n` of them, then `extra` bytes; the client stops sending once it has the answer */
    function* bytes(n: number, extra = 0): Iterable<Buffer> {
      for (let i = 0; i < n; i++) yield mib;
      if (extra) yield Buffer.alloc(extra, 7);
    }
    // a length over the limit: the answer comes before the body is read, whether the client
    // waits after a few bytes or keeps sending the whole of it
    const waiting = await rawPut(t, filePath(bundleId), t.adminKey, [Buffer.alloc(10)], { length: limit + 1 });
    expect(waiting.status).toBe(403);
    expect(JSON.parse(waiting.body.toString())).toEqual(refusal);
    expect(waiting.headers.connection).toBe('close');
    const sending = await rawPut(t, filePath(bundleId), t.adminKey, bytes(64, 1), { length: limit + 1 });
    expect(sending.status).toBe(403);
    expect(JSON.parse(sending.body.toString())).toEqual(refusal);
    expect(sending.headers.connection).toBe('close');
    // streamed without a length: the server reads up to the limit, answers, and closes; the
    // client, still sending when the answer comes, reads it (no "socket hang up")
    for (let round = 0; round < 3; round++) {
      const streamed = await rawPut(t, filePath(bundleId), t.adminKey, bytes(128), { chunked: true });
      expect(streamed.status).toBe(403);
      expect(JSON.parse(streamed.body.toString())).toEqual(refusal);
      expect(streamed.headers.connection).toBe('close');
    }
    // the earlier file stands, and it is the only thing in the folder (no temporary file left)
    expect((await download(t, filePath(bundleId), t.adminKey)).body.equals(kept)).toBe(true);
    await expect.poll(() => firmwareBlobs(bundleId), { timeout: MIN_WAIT_MS }).toHaveLength(1);
    // and the server goes on answering
    expect((await rawPut(t, filePath(bundleId), t.adminKey, [kept], { length: kept.length })).status).toBe(201);
  });

  it('refuses to delete a bundle a running rollout brings; after the abort it goes with its files', async () => {
    const bundleId = await makeBundle(t);
    const bytes = randomBytes(100);
    expect((await rawPut(t, filePath(bundleId), t.adminKey, [bytes], { length: 100 })).status).toBe(201);
    const d = await t.seedDevice();
    const created = await t.http('POST', '/projects/1/rollouts', { token: t.adminKey, body: { bundleId, target: { deviceIds: [d.id] } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const refused = await t.http('DELETE', `/bundles/${bundleId}`, { token: t.adminKey });
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe('INVALID_STATE');
    const aborted = await t.http('PATCH', `/projects/1/rollouts/${created.body.id}`, { token: t.adminKey, body: { state: 'aborted' } });
    expect(aborted.status).toBe(200);
    expect((await t.http('DELETE', `/bundles/${bundleId}`, { token: t.adminKey })).status).toBe(204);
    expect((await download(t, filePath(bundleId), t.adminKey)).status).toBe(404);
    expect(firmwareBlobs(bundleId)).toHaveLength(0);
  });
});
