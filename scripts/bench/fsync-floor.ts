// The disk's own fdatasync latency, as the SQLite WAL sees it (issue #26): a preallocated 16 MiB
// file overwritten in place, 4 to 64 KiB at a time at the next offset (wrapping), then
// fdatasync(2) from libuv's pool, about `rate` times a second (the half-load webhook run's ~700
// syncs/s). Prints the distribution of the syncs, the writes, and the write+sync per cycle.
// `grow`: append instead (the file's size changes, so each fdatasync also commits metadata).
//   npx tsx scripts/bench/fsync-floor.ts [seconds=20] [rate=700] [overwrite|grow] [dir=os.tmpdir()]
import { open } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const seconds = Number(process.argv[2] ?? 20);
const rate = Number(process.argv[3] ?? 700);
const mode = process.argv[4] ?? 'overwrite';
const dir = mkdtempSync(join(process.argv[5] ?? tmpdir(), 'fsync-floor-'));
const SIZE = 16 << 20;
const file = join(dir, 'wal');
const h = await open(file, 'w+');
const chunk = Buffer.alloc(64 << 10, 7);
if (mode === 'overwrite') {
  for (let o = 0; o < SIZE; o += chunk.length) await h.write(chunk, 0, chunk.length, o);
  await h.sync();
}
const syncs: number[] = [];
const cycles: number[] = [];
let offset = 0;
const end = performance.now() + seconds * 1000;
const period = 1000 / rate;
let next = performance.now();
while (performance.now() < end) {
  const now = performance.now();
  if (now < next) await new Promise((r) => setTimeout(r, next - now));
  next += period;
  const len = (4 + Math.floor(Math.random() * 61)) << 10;
  if (mode === 'overwrite' && offset + len > SIZE) offset = 0;
  const t0 = performance.now();
  await h.write(chunk, 0, len, offset);
  offset += len;
  const t1 = performance.now();
  await h.datasync();
  const t2 = performance.now();
  syncs.push(t2 - t1);
  cycles.push(t2 - t0);
  // behind schedule (a slow sync): go on at once, as the pipeline does, without a burst to catch up
  if (next < t2) next = t2;
}
await h.close();
rmSync(dir, { recursive: true, force: true });
const pct = (a: number[], p: number) => a.slice().sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(a.length * p))];
const line = (name: string, a: number[]) =>
  `${name}: n ${a.length} p50 ${pct(a, 0.5).toFixed(2)} ms p90 ${pct(a, 0.9).toFixed(2)} p99 ${pct(a, 0.99).toFixed(2)} p99.9 ${pct(a, 0.999).toFixed(2)} max ${Math.max(...a).toFixed(2)}`;
console.log(`${mode} at ${rate}/s target, ${(syncs.length / seconds).toFixed(0)}/s done, ${seconds} s, dir ${process.argv[5] ?? tmpdir()}`);
console.log(line('fdatasync', syncs));
console.log(line('write+fdatasync', cycles));
