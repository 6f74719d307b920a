// The disk's own fdatasync latency, as the SQLite WAL sees it (issue #26): a preallocated 16 MiB
// file overwritten in place, 4 to 64 KiB at a time at the next offset (wrapping), then
// fdatasync(2) from libuv's pool, about `rate` times a second (the half-load webhook run's ~700
// syncs/s). Prints the distribution of the syncs, the writes, and the write+sync per cycle.
// `grow`: append instead (the file's size changes, so each fdatasync also commits metadata).
// Then a model: these syncs, in the order measured, under the event pipeline's group commit with
// events arriving at random (Poisson) at `events` a second and a commit of `commitMs` on the event
// loop, nothing else costing anything: the PUBACK p50/p99 the disk alone allows, for today's
// serial design (a batch commits and syncs; what arrives meanwhile waits for the next batch) and
// for two batches syncing at once (the next commits while the last one syncs; answered in order),
// which assumes two overlapping syncs take what one takes.
//   npx tsx scripts/bench/fsync-floor.ts [seconds=20] [rate=700] [overwrite|grow] [dir=os.tmpdir()] [events=1500] [commitMs=0.3]
import { open } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const seconds = Number(process.argv[2] ?? 20);
const rate = Number(process.argv[3] ?? 700);
const mode = process.argv[4] ?? 'overwrite';
const dir = mkdtempSync(join(process.argv[5] ?? tmpdir(), 'fsync-floor-'));
const events = Number(process.argv[6] ?? 1500);
const commitMs = Number(process.argv[7] ?? 0.3);
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

/** the PUBACK latencies of Poisson arrivals at `perSecond` over the syncs `s` (ms), `overlap`: two batches may sync at once */
function model(s: number[], perSecond: number, overlap: boolean): number[] {
  const out: number[] = [];
  const gap = () => (-Math.log(1 - Math.random()) * 1000) / perSecond;
  let next = gap();
  let commitFree = 0;
  let lastSyncEnd = 0;
  let lastAck = 0;
  for (const sync of s) {
    // the batch starts once the pipeline may commit and something is there
    const start = Math.max(overlap ? commitFree : lastAck, next);
    const batch: number[] = [];
    while (next <= start) {
      batch.push(next);
      next += gap();
    }
    const syncStart = Math.max(start + commitMs, overlap ? 0 : lastSyncEnd);
    const syncEnd = syncStart + sync;
    // answered in commit order: after the batch before it too
    const ack = Math.max(syncEnd, lastAck);
    for (const t of batch) out.push(ack - t);
    commitFree = overlap ? Math.max(start + commitMs, lastSyncEnd) : ack;
    lastSyncEnd = syncEnd;
    lastAck = ack;
  }
  return out;
}
for (const overlap of [false, true]) {
  const l = model(syncs, events, overlap);
  console.log(
    `model, ${overlap ? 'two syncing at once' : 'serial (today)'}, ${events} events/s, commit ${commitMs} ms: PUBACK p50 ${pct(l, 0.5).toFixed(2)} ms p99 ${pct(l, 0.99).toFixed(2)} ms (${(l.length / syncs.length).toFixed(1)} events a batch)`,
  );
}
