// BlobStore on the local filesystem: one file per key under a root directory (the data
// directory's `blobs/`). Each write goes to a temporary file beside its target and is renamed
// into place once complete and flushed, so readers never see half a file and a crash leaves only
// a `.tmp-*` file behind (swept by the next write to that folder's tree deletion).
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { BlobTooLargeError, type BlobInfo, type BlobSource, type BlobStore } from '../../ports/blob-store.js';

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/** key → absolute path; refuses anything that is not plain segments (no `..`, no absolute paths) */
function pathOf(root: string, key: string): string {
  const parts = key.split('/');
  if (parts.length === 0 || parts.length > 8 || !parts.every((p) => SEGMENT.test(p) && p !== '.' && p !== '..')) {
    throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  }
  const full = resolve(root, ...parts);
  if (!full.startsWith(root + sep)) throw new Error(`invalid blob key ${JSON.stringify(key)}`);
  return full;
}

async function* chunksOf(data: BlobSource): AsyncIterable<Uint8Array> {
  if (typeof data === 'string') yield Buffer.from(data, 'utf8');
  else if (data instanceof Uint8Array) yield data;
  else for await (const c of data) yield typeof c === 'string' ? Buffer.from(c, 'utf8') : c;
}

const missing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** writes chunks to a temporary file and renames it over `target` */
async function writeAtomic(target: string, chunks: AsyncIterable<Uint8Array>, maxBytes: number): Promise<BlobInfo> {
  await mkdir(dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${randomBytes(6).toString('hex')}`;
  const fh = await open(tmp, 'wx', 0o600);
  let size = 0;
  try {
    for await (const chunk of chunks) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
      await fh.write(chunk);
    }
    await fh.sync();
  } catch (e) {
    await fh.close();
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await fh.close();
  await rename(tmp, target);
  return { size };
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    n += e.isDirectory() ? await countFiles(join(dir, e.name)) : e.name.includes('.tmp-') ? 0 : 1;
  }
  return n;
}

export function createFsBlobStore(rootDir: string): BlobStore {
  const root = resolve(rootDir);
  const at = (key: string) => pathOf(root, key);

  const statOf = async (key: string): Promise<BlobInfo | undefined> => {
    try {
      const s = await stat(at(key));
      return s.isFile() ? { size: s.size } : undefined;
    } catch (e) {
      if (missing(e)) return undefined;
      throw e;
    }
  };

  return {
    async put(key, data, opts) {
      return writeAtomic(at(key), chunksOf(data), opts?.maxBytes ?? Number.POSITIVE_INFINITY);
    },
    stat: statOf,
    async open(key, range) {
      const info = await statOf(key);
      if (!info) return undefined;
      return { ...info, stream: createReadStream(at(key), range) };
    },
    async read(key) {
      try {
        return await readFile(at(key));
      } catch (e) {
        if (missing(e)) return undefined;
        throw e;
      }
    },
    async concat(target, sources) {
      const paths = sources.map(at);
      async function* all(): AsyncIterable<Uint8Array> {
        for (const p of paths) yield* createReadStream(p);
      }
      return writeAtomic(at(target), all(), Number.POSITIVE_INFINITY);
    },
    async delete(key) {
      try {
        await unlink(at(key));
        return true;
      } catch (e) {
        if (missing(e)) return false;
        throw e;
      }
    },
    async deleteTree(prefix) {
      const dir = at(prefix);
      const n = await countFiles(dir);
      await rm(dir, { recursive: true, force: true });
      return n;
    },
  };
}
