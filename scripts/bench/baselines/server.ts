// A broker alone in its own process (forked with tsx and --expose-gc; the Hearth it starts is the built
// server in dist/, hearth.ts), for the connections bench:
// its resident memory is then the broker's and nothing else's. Driven over IPC:
//   {type:'start', mode:'hearth'|'aedes', keys?: string[], env?}  → {type:'started', port, httpPort, adminKey}
//   {type:'restart', env?}  Hearth stops and starts again on the same data directory and ports
//                           (the fleet bench's reconnect storm)        → {type:'started', ...}
//   {type:'measure', idleMs?}                               → {type:'memory', rss, heapUsed, ...}
//                           (idleMs: only a wait, no collection forced: what V8 gives back on its own)
//   {type:'profile', action:'start', majorOnly?}            → {type:'profiling'}  (a CPU profile of this process, inspector;
//                                                             majorOnly: the allocations sampled leave out what the young
//                                                             generation collected: what lived long enough to be promoted)
//   {type:'profile', action:'stop', file}                   → {type:'profiled'}   (written to file as .cpuprofile, and
//                                                             the sampled allocations, garbage included, beside it as .heapprofile)
//   {type:'snapshot', file}                                → {type:'snapshotted'}  (a heap snapshot after a full collection:
//                                                             what each connection holds, by owner; fleet-heap.ts)
//   {type:'threads'}                                      → {type:'threads', main, 'V8 platform', 'libuv pool', worker}
//                           (CPU µs so far of each kind of this process's threads, threads.ts)
//   {type:'close'}
// `env`: settings on top of the bench's own (HEARTH_LIMITS_*...).
// Hearth runs as shipped (broker role, SQLite in a temp directory) with one device per key.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { loadHearth } from './hearth.js';
import type { Hearth } from '../../../src/main.js';
import { seedDevices, startBareAedes, type RunningBroker } from './brokers.js';
import { selfThreadKinds, selfThreadMicros, type ThreadKind } from './threads.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

type Env = Record<string, string>;
type Msg =
  | { type: 'start'; mode: 'hearth' | 'aedes'; keys?: string[]; env?: Env }
  | { type: 'restart'; env?: Env }
  | { type: 'measure'; idleMs?: number }
  | { type: 'profile'; action: 'start' | 'stop'; file?: string; majorOnly?: boolean }
  | { type: 'snapshot'; file: string }
  | { type: 'threads' }
  | { type: 'close' };

const send = (m: unknown): void => void process.send!(m);
let hearth: Hearth | undefined;
let aedes: RunningBroker | undefined;
let dataDir: string | undefined;
let adminKey: string | undefined;

async function startHearthHere(env: Env = {}, ports: { http: number; mqtt: number } = { http: 0, mqtt: 0 }): Promise<Hearth> {
  const config = loadConfig({
    HEARTH_DATA_DIR: dataDir!,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: String(ports.http),
    HEARTH_MQTT_PORT: String(ports.mqtt),
    HEARTH_ROLES: 'broker,api,worker',
    HEARTH_LOG_LEVEL: 'warn',
    ...env,
  });
  const h = await startHearth(config, pino({ level: 'warn' }));
  adminKey ??= h.adminKey;
  return h;
}

async function start(m: Extract<Msg, { type: 'start' }>): Promise<void> {
  if (m.mode === 'aedes') {
    aedes = await startBareAedes();
    send({ type: 'started', port: aedes.port });
    return;
  }
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-conn-'));
  hearth = await startHearthHere(m.env);
  const keys = m.keys ?? [];
  await seedDevices(hearth, keys.length, { keyOf: (i) => keys[i] });
  send({ type: 'started', port: hearth.mqttPort, httpPort: hearth.httpPort, adminKey });
}

async function restart(m: Extract<Msg, { type: 'restart' }>): Promise<void> {
  const ports = { http: hearth!.httpPort, mqtt: hearth!.mqttPort };
  await hearth!.close();
  hearth = await startHearthHere(m.env, ports);
  send({ type: 'started', port: hearth.mqttPort, httpPort: hearth.httpPort, adminKey });
}

/** V8's young generation (new space), bytes */
const newSpaceOf = (): number => getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0;
/**
 * what V8 (Node 20) shrinks the young generation back to once the allocation rate is low: 1 MiB,
 * 2 MiB after some collections (not its size when this process started: loading the modules
 * through tsx had already grown it to 32 MiB)
 */
const NEW_SPACE_SHRUNK = 2 * 1024 * 1024;

async function measure(req: Extract<Msg, { type: 'measure' }>): Promise<void> {
  // let pending writes finish, then collect with idle pauses between, so what is left is what is
  // held and V8 has had the chance to give back what it no longer needs. A storm grows the young
  // generation (up to 32 MiB, 2.2 KiB per device at 15,000), and V8 shrinks it back only after a
  // few collections that each see a low allocation rate: after 8 rounds it sometimes had and
  // sometimes had not, on Hearth's side or bare Aedes's, and the resident figure per device moved
  // by that much from run to run. So at least 8 rounds, then on until the young generation is back
  // to 2 MiB or less, 24 rounds (18 s) at most; the same for every node server.
  // The reading comes an idle pause after the last collection: pages a collection emptied go back
  // to the system after it returns, and a reading right after it counted bare Aedes 20 MB higher
  // than one a moment later.
  const pause = () => new Promise((r) => setTimeout(r, 750));
  await pause();
  let rounds = 0;
  // idleMs: no collection forced, only a wait (what V8 gives back on its own)
  if (req.idleMs) await new Promise((r) => setTimeout(r, req.idleMs));
  while (!req.idleMs && rounds < 24) {
    (globalThis as { gc?: () => void }).gc?.();
    rounds++;
    await pause();
    if (rounds >= 8 && newSpaceOf() <= NEW_SPACE_SHRUNK) break;
  }
  const m = process.memoryUsage();
  const smaps = smapsRollup();
  const spaces = getHeapSpaceStatistics();
  send({
    /** V8's young generation as it stands (semi-spaces grown by a storm stay grown until V8 shrinks them) */
    newSpace: spaces.find((x) => x.space_name === 'new_space')?.space_size,
    /** collections it took (24: the young generation was still grown) */
    rounds,
    type: 'memory',
    // resident as the page tables have it (smaps_rollup), as rssOf reads Mosquitto's: the
    // process's own counter (memoryUsage().rss, /proc/<pid>/stat) is kept per CPU and was several
    // MB off from it at fleet size
    rss: smaps.Rss ?? m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    connections: hearth?.broker?.connectionCount,
    /** each V8 space's committed and used bytes, V8's own malloc'd memory, and the kernel's view (smaps_rollup: resident anonymous, file-backed) */
    spaces: Object.fromEntries(spaces.map((x) => [x.space_name, { size: x.space_size, used: x.space_used_size }])),
    malloced: getHeapStatistics().malloced_memory,
    smaps,
    mappings: smapsByKind(),
  });
}

// glibc's arenas for threads other than the main one are mappings of 64 MiB reserved at a 64 MiB
// boundary (HEAP_MAX_SIZE), made readable as they grow; the main thread's arena is [heap] (brk)
const ARENA = 64 * 1024 * 1024;

/**
 * resident bytes by kind of mapping (/proc/self/smaps): `brk` the main thread's malloc arena
 * ([heap]: SQLite's page cache and most of Node's own malloc), `arenas` the other threads' malloc
 * arenas, `anon` every other anonymous mapping (V8's heap pages, malloc's large chunks, thread
 * stacks), `shm` SQLite's WAL index, `files` code and data mapped from files; {} off Linux
 */
function smapsByKind(): Record<string, number> {
  try {
    const out: Record<string, number> = { brk: 0, arenas: 0, anon: 0, shm: 0, files: 0 };
    let kind = 'anon';
    for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
      const head = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (head) {
        const [, start, perms, name] = head;
        if (name === '[heap]') kind = 'brk';
        else if (name.endsWith('-shm')) kind = 'shm';
        else if (name.startsWith('/')) kind = 'files';
        else if (!name && perms.startsWith('rw') && BigInt('0x' + start) % BigInt(ARENA) === 0n) kind = 'arenas';
        else kind = 'anon';
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB$/.exec(line);
      if (rss) out[kind] += Number(rss[1]) * 1024;
    }
    return out;
  } catch {
    return {};
  }
}

/** /proc/self/smaps_rollup as bytes by field (Rss, Anonymous, Private_Dirty...); {} off Linux */
function smapsRollup(): Record<string, number> {
  try {
    const out: Record<string, number> = {};
    for (const m of readFileSync('/proc/self/smaps_rollup', 'utf8').matchAll(/^(\w+):\s+(\d+) kB$/gm)) out[m[1]] = Number(m[2]) * 1024;
    return out;
  } catch {
    return {};
  }
}

let session: Session | undefined;

async function profile(m: Extract<Msg, { type: 'profile' }>): Promise<void> {
  if (m.action === 'start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    // and where it allocates, garbage included (what the young generation and the GC threads work on)
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: !m.majorOnly,
    });
    send({ type: 'profiling' });
    return;
  }
  const { profile } = await session!.post('Profiler.stop');
  const { profile: heap } = await session!.post('HeapProfiler.stopSampling');
  session!.disconnect();
  session = undefined;
  mkdirSync(dirname(m.file!), { recursive: true });
  writeFileSync(m.file!, JSON.stringify(profile));
  writeFileSync(m.file!.replace(/\.cpuprofile$/, '') + '.heapprofile', JSON.stringify(heap));
  send({ type: 'profiled' });
}

/** which kind each thread is, found once (it gives libuv's pool work: asked before a storm, not during one) */
let kindOf: Promise<(tid: number) => ThreadKind> | undefined;

/** the CPU µs each kind of thread of this process has used so far */
async function threads(): Promise<void> {
  const kind = await (kindOf ??= selfThreadKinds());
  const out: Record<ThreadKind, number> = { main: 0, 'V8 platform': 0, 'libuv pool': 0, worker: 0 };
  for (const [tid, micros] of selfThreadMicros()) out[kind(tid)] += micros;
  send({ type: 'threads', ...out });
}

process.on('message', (m: Msg) => {
  const fail = (e: unknown) => send({ type: 'error', message: (e as Error).stack ?? String(e) });
  switch (m.type) {
    case 'start':
      start(m).catch(fail);
      break;
    case 'restart':
      restart(m).catch(fail);
      break;
    case 'measure':
      measure(m).catch(fail);
      break;
    case 'profile':
      profile(m).catch(fail);
      break;
    case 'threads':
      threads().catch(fail);
      break;
    case 'snapshot':
      Promise.resolve()
        .then(() => {
          (globalThis as { gc?: () => void }).gc?.();
          mkdirSync(dirname(m.file), { recursive: true });
          writeHeapSnapshot(m.file);
          send({ type: 'snapshotted' });
        })
        .catch(fail);
      break;
    case 'close':
      Promise.resolve()
        .then(() => hearth?.close())
        .then(() => aedes?.close())
        .finally(() => {
          if (dataDir) rmSync(dataDir, { recursive: true, force: true });
          process.exit(0);
        });
      break;
  }
});
// the bench went away (a crash, Ctrl-C): no orphaned server
process.on('disconnect', () => process.exit(0));
send({ type: 'up' });
