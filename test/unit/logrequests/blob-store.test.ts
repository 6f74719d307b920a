// The filesystem BlobStore: atomic writes, size limits, multipart assembly, and keys that can
// never leave the store's directory.
import { describe, expect, it, onTestFinished } from 'vitest';
import { mkdtempSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFsBlobStore } from '../../../src/adapters/fs/blob-store.js';
import { BlobTooLargeError } from '../../../src/ports/blob-store.js';

function store() {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-blob-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, blobs: createFsBlobStore(join(dir, 'root')) };
}

async function* chunks(...parts: string[]) {
  for (const p of parts) yield Buffer.from(p);
}

describe('fs blob store', () => {
  it('writes, stats, reads, streams and deletes', async () => {
    const { blobs } = store();
    expect(await blobs.put('a/b/c', chunks('hello ', 'world'))).toEqual({ size: 11 });
    expect(await blobs.stat('a/b/c')).toEqual({ size: 11 });
    expect((await blobs.read('a/b/c'))?.toString()).toBe('hello world');
    const open = await blobs.open('a/b/c');
    let text = '';
    for await (const c of open!.stream) text += Buffer.from(c).toString();
    expect(text).toBe('hello world');
    expect(await blobs.delete('a/b/c')).toBe(true);
    expect(await blobs.delete('a/b/c')).toBe(false);
    expect(await blobs.stat('a/b/c')).toBeUndefined();
    expect(await blobs.open('a/b/c')).toBeUndefined();
    expect(await blobs.read('a/b/c')).toBeUndefined();
  });

  it('refuses more than maxBytes and keeps nothing, not even the old object half replaced', async () => {
    const { dir, blobs } = store();
    await blobs.put('k', 'old');
    await expect(blobs.put('k', chunks('12345', '6789'), { maxBytes: 8 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect((await blobs.read('k'))?.toString()).toBe('old');
    expect(readdirSync(join(dir, 'root'))).toEqual(['k']);
  });

  it('concatenates parts in the order given', async () => {
    const { blobs } = store();
    await blobs.put('p/2', 'world');
    await blobs.put('p/1', 'hello ');
    expect(await blobs.concat('file', ['p/1', 'p/2'])).toEqual({ size: 11 });
    expect((await blobs.read('file'))?.toString()).toBe('hello world');
    expect(await blobs.deleteTree('p')).toBe(2);
    expect(await blobs.stat('p/1')).toBeUndefined();
    expect(await blobs.deleteTree('p')).toBe(0);
  });

  it('refuses keys that could leave its directory', async () => {
    const { dir, blobs } = store();
    for (const key of ['../x', 'a/../../x', '/etc/passwd', 'a//b', '', '.', 'a/.', '.hidden', 'a\\b', 'a/b\u0000']) {
      await expect(blobs.put(key, 'x'), key).rejects.toThrow(/invalid blob key/);
      await expect(blobs.stat(key), key).rejects.toThrow(/invalid blob key/);
    }
    expect(existsSync(join(dir, 'x'))).toBe(false);
  });
});
