// `npm run bench -- webhooks`: events from a device until the webhook receiver has them.
//
// Hearth runs in this process (broker + api + worker roles, SQLite: the real outbox, queue, worker
// and signed keep-alive delivery). A load generator (child process) is the device: it publishes
// events over MQTT (`/devices/{id}/event`, QoS 1: PUBACK once committed) or sends them with
// `PUT /devices/{id}/event`. A receiver (another child process, node:http) answers the webhooks.
// The baseline, in the same run, is the same generator POSTing the same bodies straight to the
// same receiver over a bare node:http keep-alive pool. HTTP events go over raw keep-alive sockets
// (webhooks-children.ts: one prepared write per request, every answer's status checked), node:http's
// client being dearer per event than the MQTT client; they are compared with the same POST loop
// sent the same raw way ("bare node:http, raw"). All are closed loops at one concurrency,
// on the device side and at the receiver (the worker's concurrency is set to the baseline's).
//
// Throughput = events / (first send → last arrival); latency = arrival − send (the event carries
// its own send time). Floor: Hearth with MQTT device events ≥ 0.5x the baseline's throughput.
// At half load the device's socket sends each publish at once (TCP_NODELAY, like the baseline's
// node:http Agent; webhooks-children.ts says why), and the latency is split in two: the PUBACK at
// the device (publish → committed and synced) and the webhook at the receiver.
// Measured warm: each target is first warmed until V8's optimizing compiler is done with it
// (warmUpPlan below says how, and why), and what the compiler took in the warm-up and in the
// measured run is printed. Also printed: the delivery stage alone (a queue filled first, then
// drained by a new worker, whose sender thread compiles anew), which isolates the webhook worker
// from event ingestion.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/load.js';
import { loadBuilt, loadHearth } from './baselines/hearth.js';
import { hashToken } from '../../src/domain/auth/tokens.js';
import { newBenchDeviceKey, sealerOf } from './baselines/device-keys.js';
import type { BenchOptions, BenchResult } from './lib/types.js';
import { GENERATOR, RECEIVER } from './webhooks-children.js';
import { profiled } from './lib/profile.js';
import { pausesLine, watchPauses, type Pauses } from './lib/pauses.js';
import { commitCounts } from './lib/fleet.js';
import { commitSplitLines, traceCommits, type CommitSplit } from './lib/commit-split.js';
import { cpuByThreadKind, selfThreadKinds, selfThreadMicros, threadKindLines, type ThreadKind } from './lib/proc-cpu.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();
const { createWorker } = await loadBuilt<typeof import('../../src/worker/index.js')>('src/worker/index');
const { startThread } = await loadBuilt<typeof import('../../src/adapters/thread-port.js')>('src/adapters/thread-port');

const FLOOR = 0.5;

interface Figures {
  target: string;
  events: number;
  seconds: number;
  perSecond: number;
  /** how fast the sender got its answers (Hearth: accepted = committed with its deliveries) */
  acceptedPerSecond: number;
  p50: number;
  p99: number;
  duplicates: number;
  /** CPU of every process involved, per event (contention-proof companion to events/s) */
  cpuMicrosPerEvent: number;
  /** of which Hearth (all its threads), and Hearth's main thread (its event loop) */
  hearthMicrosPerEvent: number;
  mainThreadMicrosPerEvent: number;
  /** the busiest of Hearth's other threads: the sender thread */
  senderThreadMicrosPerEvent: number;
  /** Hearth's CPU per event by kind of thread (lib/proc-cpu.ts), when its CPU is counted */
  threads?: ReturnType<typeof cpuByThreadKind>;
  /** paced MQTT runs: each event's PUBACK at the device, ms after its send (sorted) */
  acks?: number[];
  /** Hearth's runs: the event pipeline's commits and the events in them (/metrics) */
  commits?: { commits: number; items: number };
}

type Job = Record<string, unknown> & { count: number; offset: number };

/** issue #26: the webhook's p99 at half load, with events in over MQTT */
const P99_TARGET_MS = 5;

function child(dir: string, name: string, code: string): ChildProcess {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, code);
  return fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
}

const nextMessage = <T>(p: ChildProcess, pick: (m: any) => boolean): Promise<T> =>
  new Promise((resolve, reject) => {
    const on = (m: any) => {
      if (m?.error) {
        p.off('message', on);
        reject(new Error(m.error));
      } else if (pick(m)) {
        p.off('message', on);
        resolve(m as T);
      }
    };
    p.on('message', on);
  });

const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/**
 * The warm-up (issue #26). Hearth's targets are warmed in slices of a quarter of the count until
 * TurboFan has finished with them: until two slices in a row where Hearth's V8 platform threads
 * (its background compiles and GC helpers, lib/proc-cpu.ts) took at most SETTLED of Hearth's CPU
 * per event. Over 150,000 MQTT events with --trace-opt they took 3 to 10% of it until about
 * 120,000 (functions that run once per commit of 50 to 100 events, or once per batch of
 * deliveries, became hot that late: the transaction's store, the group commit's steps, the sender
 * thread's claim loop) and about 1% (GC alone) in slices where nothing was compiled; no function
 * was deoptimized more than three times. The 2,000 events of the warm-up before this one left 10
 * to 24 µs per event of compiling in a measured run of 20,000 (docs/operations.md#durability). A
 * long-running server pays that once: the bench measures what comes after. One slice under
 * SETTLED is not enough: one was seen between two compiles. The bare loops (no Hearth in them: the
 * device's and the receiver's code only) are warmed until their CPU per event stops falling (under
 * 5% below the slice before). Caps keep the bench's time within about twice the old warm-up's; a
 * target that reaches its cap is printed NOT settled, and every target's warm-up is printed slice
 * by slice beside the same figure in its measured run. BENCH_WEBHOOK_WARMUP=<n> warms every target
 * with n events instead (2,000, a tenth of the default count, was the warm-up before).
 */
const SETTLED = 0.03;
interface WarmUpPlan {
  slice: number;
  /** the most events a target gets: Hearth's with MQTT events in (the first warmed), with HTTP events in, the bare loops' */
  max: { mqtt: number; http: number; bare: number };
  /** a fixed warm-up (BENCH_WEBHOOK_WARMUP): no target is judged settled or not */
  fixed: boolean;
  settled: (slices: Figures[]) => boolean;
  what: string;
}
function warmUpPlan(count: number): WarmUpPlan {
  const fixed = process.env.BENCH_WEBHOOK_WARMUP;
  if (fixed !== undefined) {
    const n = Number(fixed);
    if (!Number.isInteger(n) || n < 0) throw new Error(`BENCH_WEBHOOK_WARMUP must be a whole number of events, got ${fixed}`);
    return {
      slice: Math.max(1, n),
      max: { mqtt: n, http: n, bare: n },
      fixed: true,
      settled: () => false,
      what: `a fixed warm-up of ${n} events per target (BENCH_WEBHOOK_WARMUP)`,
    };
  }
  // slices of 500 events (BENCH_WEBHOOK_EVENTS=2000) were seen under SETTLED twice in a row at 7,000
  // events while the measured run after them still compiled: two slices that short fit between two compiles
  const slice = Math.max(1000, Math.round(count / 4));
  // caps that keep the bench's run within about twice the time it took with the old warm-up; HTTP
  // events in run the same pipeline and sender as MQTT's, warmed just before
  const max = { mqtt: Math.max(4 * count, 4 * slice), http: Math.max(2 * count, 2 * slice), bare: Math.max(count, 2 * slice) };
  return {
    slice,
    max,
    fixed: false,
    settled: (slices) => {
      const [prev, last] = slices.slice(-2);
      if (last === undefined) return false;
      // Hearth: two slices in a row under SETTLED (one alone was seen between two compiles)
      if (last.threads) return [prev, last].every((r) => r.threads!['V8 platform'] <= SETTLED * r.hearthMicrosPerEvent);
      return last.cpuMicrosPerEvent >= 0.95 * prev.cpuMicrosPerEvent;
    },
    what: `warm-up in slices of ${slice}: Hearth's targets until its V8 platform threads take at most ${SETTLED * 100}% of its CPU per event in two slices in a row (at most ${max.mqtt} events with MQTT events in, ${max.http} with HTTP), the bare loops until their CPU per event stops falling (at most ${max.bare})`,
  };
}

/** called as the load generator is told to start, and once the receiver has had the last event */
interface LoadWindow {
  start(): void;
  end(): void;
}

async function runOnce(
  target: string,
  rx: ChildProcess,
  gen: ChildProcess,
  job: Job,
  countOwnCpu: boolean,
  kindOf: (tid: number) => ThreadKind,
  onSent?: () => void,
  during?: LoadWindow,
): Promise<Figures & { last: number }> {
  rx.send({ expect: job.count });
  await nextMessage(rx, (m) => m.ready);
  const done = nextMessage<{ latencies: number[]; last: number; dup: number; cpuMicros: number }>(rx, (m) => m.done);
  const sentP = nextMessage<{ started: number; sent: number; cpuMicros: number; acks?: number[] }>(gen, (m) => m.started !== undefined);
  if (onSent) void sentP.then(onSent, () => {});
  // ends in the reaction to the receiver's last answer, before any timer can record the time its
  // latencies took to arrive and be read (the bench's own work, not Hearth's)
  if (during) void done.then(during.end, () => {});
  const cpu = process.cpuUsage();
  const threads0 = selfThreadMicros();
  during?.start();
  gen.send(job);
  const [sent, got] = await Promise.all([sentP, done]);
  const own = process.cpuUsage(cpu);
  // the main thread runs the event loop; the busiest worker thread is the sender thread
  const threads = countOwnCpu ? cpuByThreadKind(threads0, selfThreadMicros(), kindOf, job.count) : undefined;
  const seconds = (got.last - sent.started) / 1000;
  const sorted = got.latencies.sort((a, b) => a - b);
  const hearthMicros = countOwnCpu ? own.user + own.system : 0;
  return {
    target,
    events: job.count,
    seconds,
    perSecond: job.count / seconds,
    acceptedPerSecond: job.count / ((sent.sent - sent.started) / 1000),
    p50: pct(sorted, 0.5),
    p99: pct(sorted, 0.99),
    duplicates: got.dup,
    cpuMicrosPerEvent: (sent.cpuMicros + got.cpuMicros + hearthMicros) / job.count,
    hearthMicrosPerEvent: hearthMicros / job.count,
    mainThreadMicrosPerEvent: threads?.main ?? 0,
    senderThreadMicrosPerEvent: threads?.['busiest worker'] ?? 0,
    ...(threads ? { threads } : {}),
    acks: sent.acks?.sort((a, b) => a - b),
    last: got.last,
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-bench-webhooks-'));
  const count = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000);
  const warm = warmUpPlan(count);
  const concurrency = Math.min(opts.connections, 64);
  // Requests in flight at the receiver: the baseline keeps `concurrency` there, so the worker may
  // too (a closed loop's throughput is its concurrency over its latency; comparing 16 against 50
  // would measure the setting, not the pipeline). BENCH_WEBHOOK_CONCURRENCY measures another
  // setting, e.g. the default (config/default.json webhooks.concurrency).
  const workerConcurrency = process.env.BENCH_WEBHOOK_CONCURRENCY ?? String(concurrency);
  const synchronous = process.env.HEARTH_SQLITE_SYNCHRONOUS ?? 'full';
  const config = loadConfig({
    HEARTH_DATA_DIR: join(dir, 'data'),
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: '0',
    HEARTH_MQTT_PORT: '0',
    HEARTH_ROLES: 'broker,api',
    HEARTH_LOG_LEVEL: 'warn',
    HEARTH_RATE_LIMIT_ENABLED: 'false',
    HEARTH_MQTT_RATE_LIMIT_PUBLISHES_PER_SECOND: '10000000',
    HEARTH_MQTT_RATE_LIMIT_BURST: '10000000',
    HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    HEARTH_WEBHOOKS_CONCURRENCY: workerConcurrency,
    // the default, `full`: every acknowledged event synced first. `normal` shows what the WAL's
    // fdatasync costs the latency (docs/operations.md#durability says what it gives up)
    HEARTH_SQLITE_SYNCHRONOUS: synchronous,
  });
  console.log(`  SQLite synchronous=${synchronous}${synchronous === 'full' ? '' : ' (HEARTH_SQLITE_SYNCHRONOUS: not the default)'}`);
  const rx = child(dir, 'receiver', RECEIVER);
  const gen = child(dir, 'generator', GENERATOR);
  const hearth = await startHearth(config, pino({ level: 'warn' }));
  // the worker role, built here as main.ts builds it, so the delivery stage can be run on its own
  const newWorker = () =>
    createWorker({ ...hearth.deps, logger: pino({ level: 'warn' }), webhooks: config.webhooks, releaseLeasesOnStart: true, threads: startThread });
  let worker = newWorker();
  const results: Figures[] = [];
  let halfLoad: Pauses | undefined;
  /** BENCH_COMMIT_SPLIT=1: where the half-load run's PUBACK time goes in Hearth (lib/commit-split.ts) */
  let halfLoadSplit: CommitSplit | undefined;
  let bareRawRun: Figures | undefined;
  let halfLoadWindow: string[] = [];
  /** each target's warm-up slices */
  const warmed = new Map<string, Figures[]>();
  let stage: { perSecond: number; bare: number; hearthMicros: number; threads: ReturnType<typeof cpuByThreadKind> } | undefined;
  try {
    const { port } = await nextMessage<{ port: number }>(rx, (m) => m.port);
    const hookUrl = `http://127.0.0.1:${port}/hook`;
    const store = hearth.deps.store;
    const now = new Date().toISOString();
    const home = await store.homes.create({ projectId: 1, name: 'bench home', creationTime: now });
    const deviceKey = newBenchDeviceKey();
    const device = await store.devices.create({
      projectId: 1,
      deviceClass: 'default',
      homeId: home.id,
      name: 'bench sensor',
      description: null,
      tag: null,
      apiKeyHash: hashToken(deviceKey),
      apiKeySealed: (await sealerOf(hearth))(deviceKey),
      claimCodeHash: null,
      claimCodeSealed: null,
      claimExpirationTime: null,
      claimTime: null,
      creationTime: now,
      bundleInstalled: null,
      bundleInstallTime: null,
      channel: null,
    });
    const base = `http://127.0.0.1:${hearth.httpPort}`;
    const created = await fetch(`${base}/projects/1/smartModules`, {
      method: 'POST',
      headers: { authorization: `ModeCloud ${hearth.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'bench-hooks', eventWebhook: { url: hookUrl } }),
    });
    if (created.status !== 201) throw new Error(`module not created: ${created.status} ${await created.text()}`);
    await worker.start();
    // which thread is which (the libuv pool found by giving it work), before anything is measured
    const kindOf = await selfThreadKinds();
    console.log(`  ${count} events per target, ${concurrency} in flight from the device; worker concurrency ${config.webhooks.concurrency}; ${warm.what}`);

    const viaMqtt = { mqttUrl: `mqtt://127.0.0.1:${hearth.mqttPort}`, deviceId: device.id, deviceKey, concurrency };
    const viaHttp = {
      url: `${base}/devices/${device.id}/event`,
      method: 'PUT',
      headers: { authorization: `ModeCloud ${deviceKey}` },
      concurrency,
      shape: 'event',
      raw: true,
    };
    const bare = { url: hookUrl, method: 'POST', headers: {}, concurrency, shape: 'webhook' };
    const bareRaw = { ...bare, raw: true };
    let offset = 0;
    const once = async (target: string, job: Record<string, unknown>, n: number, hearthCpu = false, onSent?: () => void, during?: LoadWindow) => {
      // how the events shared commits (and, on SQLite, WAL fsyncs): read outside the CPU counted
      const commits0 = hearthCpu ? await commitCounts(hearth.httpPort) : undefined;
      const r = runOnce(target, rx, gen, { ...job, count: n, offset }, hearthCpu, kindOf, onSent, during);
      offset += 10_000_000;
      if (!commits0) return r;
      const figures = await r;
      const commits1 = await commitCounts(hearth.httpPort);
      return { ...figures, commits: { commits: commits1.commits - commits0.commits, items: commits1.items - commits0.items } };
    };
    // the warm-up, target by target (warmUpPlan): each slice's figures kept for the report
    const warmUp = async (target: string, job: Record<string, unknown>, hearthCpu: boolean, max: number) => {
      const slices: Figures[] = [];
      for (let done = 0; done < max; done += warm.slice) {
        slices.push(await once(`warm-up ${target}`, job, Math.min(warm.slice, max - done), hearthCpu));
        if (warm.settled(slices)) break;
      }
      warmed.set(target, slices);
    };
    await warmUp('bare node:http', bare, false, warm.max.bare);
    await warmUp('bare node:http, raw', bareRaw, false, warm.max.bare);
    await warmUp('hearth, MQTT events', viaMqtt, true, warm.max.mqtt);
    await warmUp('hearth, HTTP events', viaHttp, true, warm.max.http);
    results.push(await profiled('webhooks-mqtt', () => once('hearth, MQTT events', viaMqtt, count, true)));
    results.push(await profiled('webhooks-http', () => once('hearth, HTTP events', viaHttp, count, true)));
    results.push(await once('bare node:http', bare, count));
    bareRawRun = await once('bare node:http, raw', bareRaw, count);
    // latency at a steady load both can carry (half of what Hearth just sustained): closed loops
    // above measure capacity, so their latency is mostly time spent queued behind the backlog.
    // BENCH_WEBHOOK_RATE fixes it, so that two revisions of an A/B run are timed at the same rate
    const rate = Number(process.env.BENCH_WEBHOOK_RATE) || Math.max(50, Math.round(results[0].perSecond / 2));
    // 5 s of it, whatever BENCH_WEBHOOK_EVENTS is: capped at the capacity runs' 20,000 events,
    // a fast machine's half load (10,000/s, 2026-11-28) ran 2 s, whose p99 (its slowest 200
    // events) was set by one or two stalls and moved 6 to 16 ms between rounds of one build
    const steady = rate * 5;
    // what stops the event loop there (SQLite's checkpoints, GC): steadier than p99 on a busy machine.
    // Watched while the events are under way only: the /metrics reads before and after the run and
    // the receiver's latencies arriving at its end are the bench's work on this event loop, not
    // Hearth's (reading those latencies was a 35 ms stall, the run's longest, 2026-11-28)
    let paused: (() => Pauses) | undefined;
    const during: LoadWindow = {
      start() {
        paused = watchPauses();
        // the window's wall-clock times, to line it up with `strace -t` or `perf trace` of the run
        halfLoadWindow = [new Date().toISOString().slice(11, 19)];
      },
      end() {
        halfLoad = paused?.();
        halfLoadWindow.push(new Date().toISOString().slice(11, 19));
      },
    };
    const split = process.env.BENCH_COMMIT_SPLIT ? traceCommits(hearth, join(config.dataDir, 'hearth.db-wal')) : undefined;
    results.push(
      await profiled('webhooks-half-load', () => once(`hearth MQTT @${rate}/s`, { ...viaMqtt, rate, noDelay: true }, steady, true, undefined, during)),
    );
    halfLoadSplit = split?.();
    results.push(await once(`bare node:http @${rate}/s`, { ...bare, rate }, steady));

    // the delivery stage alone: fill the queue with the worker stopped, then time the drain
    await worker.close();
    // every event is committed with its delivery once the device has every PUBACK
    let filled!: () => void;
    const allAcked = new Promise<void>((r) => (filled = r));
    // no Hearth figures of its own (only its last arrival is used): with them, `once` would read
    // the commit counts from /metrics when the drain ends, inside the CPU the drain is charged
    const fill = once('fill queue', viaMqtt, count, false, () => filled());
    // awaited after the drain; a failure before then (the receiver's report) must not be an unhandled rejection
    fill.catch(() => {});
    await profiled('webhooks-fill', () => allAcked);
    const queued = await store.deliveries.stats();
    if (queued.pending < count) throw new Error(`the queue holds ${queued.pending} deliveries, expected ${count}`);
    worker = newWorker();
    const t0 = performance.timeOrigin + performance.now();
    const cpu0 = process.cpuUsage();
    const threads0 = selfThreadMicros();
    const drained = await profiled('webhooks-drain', async () => {
      await worker.start();
      return fill;
    });
    const cpu = process.cpuUsage(cpu0);
    stage = {
      perSecond: count / ((drained.last - t0) / 1000),
      bare: results[2].perSecond,
      hearthMicros: (cpu.user + cpu.system) / count,
      threads: cpuByThreadKind(threads0, selfThreadMicros(), kindOf, count),
    };
  } finally {
    await worker.close();
    await hearth.close();
    rx.kill();
    gen.kill();
    rmSync(dir, { recursive: true, force: true });
  }

  const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(
    `  ${'target'.padEnd(20)} ${'events/s'.padStart(9)} ${'accepted/s'.padStart(11)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'cpu µs/ev'.padStart(10)} ${'events'.padStart(7)} ${'repeats'.padStart(8)}`,
  );
  for (const r of [...results.slice(0, 3), bareRawRun!, ...results.slice(3)]) {
    console.log(
      `  ${r.target.padEnd(20)} ${fmt(r.perSecond).padStart(9)} ${fmt(r.acceptedPerSecond).padStart(11)} ${fmt(r.p50, 1).padStart(8)} ${fmt(r.p99, 1).padStart(8)} ${fmt(r.cpuMicrosPerEvent).padStart(10)} ${String(r.events).padStart(7)} ${String(r.duplicates).padStart(8)}`,
    );
  }
  const [mqttRun, httpRun, bareRun, steadyHearth, steadyBare] = results;
  // the warm-up (warmUpPlan), and the same figure in the measured run: did the compiler finish?
  for (const r of [mqttRun, httpRun, bareRun, bareRawRun!]) {
    const slices = warmed.get(r.target) ?? [];
    const events = slices.reduce((n, x) => n + x.events, 0);
    const hearthCpu = r.threads !== undefined;
    // Hearth: its V8 platform threads (TurboFan's background compiles, GC helpers); the bare
    // loops: the device's and the receiver's CPU (no Hearth there)
    const figure = (x: Figures) => (hearthCpu ? (x.threads?.['V8 platform'] ?? 0) : x.cpuMicrosPerEvent);
    const settled = warm.fixed ? 'fixed' : warm.settled(slices) ? 'settled' : 'NOT settled (its cap)';
    const seconds = slices.reduce((n, x) => n + x.seconds, 0);
    console.log(
      `  warm-up, ${r.target}: ${fmt(events)} events in ${slices.length} slices (${fmt(seconds, 1)} s), ${settled}; ${hearthCpu ? "Hearth's V8 platform threads" : 'device and receiver'}, µs per event, slice by slice: ${slices.map((x) => fmt(figure(x), 1)).join(' ')}; in the measured run: ${fmt(figure(r), 1)}`,
    );
  }
  for (const r of [mqttRun, httpRun, steadyHearth]) {
    console.log(
      `  ${r.target}: Hearth ${fmt(r.hearthMicrosPerEvent)} µs CPU per event (main thread ${fmt(r.mainThreadMicrosPerEvent)} µs, sender thread ${fmt(r.senderThreadMicrosPerEvent)} µs), device and receiver ${fmt(r.cpuMicrosPerEvent - r.hearthMicrosPerEvent)} µs`,
    );
    // issue #26: what the other threads take (V8's GC helpers and compilers, the libuv pool's fsyncs)
    for (const line of r.threads ? threadKindLines(`  ${r.target}, Hearth per event`, r.threads, 'sender thread') : []) console.log(line);
    // issue #26: how many of the events in flight shared a commit (and a WAL sync)
    if (r.commits) console.log(`  ${r.target}, commits: ${r.commits.commits} (${(r.commits.items / r.commits.commits).toFixed(1)} events each)`);
  }
  const x = mqttRun.perSecond / bareRun.perSecond;
  const pass = x >= FLOOR && results.every((r) => r.duplicates === 0);
  console.log(`  hearth (MQTT) / bare node:http  ${x.toFixed(2)}x  (floor ${FLOOR}x: ${x >= FLOOR ? 'PASS' : 'FAIL'})`);
  console.log(`  hearth (HTTP) / bare node:http, raw  ${(httpRun.perSecond / bareRawRun!.perSecond).toFixed(2)}x`);
  // issue #26's target for events sent over HTTP: the same pipeline as MQTT in, behind the HTTP edge
  console.log(
    `  hearth (HTTP) / hearth (MQTT)   ${(httpRun.perSecond / mqttRun.perSecond).toFixed(2)}x events/s, ${(mqttRun.hearthMicrosPerEvent / httpRun.hearthMicrosPerEvent).toFixed(2)}x by CPU per event (Hearth's threads)`,
  );
  console.log(
    `  latency at ${steadyHearth.target.split('@')[1]}: hearth p50 ${steadyHearth.p50.toFixed(1)} ms p99 ${steadyHearth.p99.toFixed(1)} ms; bare p50 ${steadyBare.p50.toFixed(1)} ms p99 ${steadyBare.p99.toFixed(1)} ms`,
  );
  // issue #26's latency target as a ratio, so that an A/B run (lib/ab.ts) compares it round by
  // round (lower is better); one 5 s window's p99 moves a lot on a shared machine: read it over rounds
  console.log(`  half-load webhook p99 / target (${P99_TARGET_MS} ms, issue 26)  ${(steadyHearth.p99 / P99_TARGET_MS).toFixed(2)}x`);
  const acks = steadyHearth.acks;
  if (acks?.length) {
    console.log(
      `  at ${steadyHearth.target.split('@')[1]}, split: PUBACK at the device (committed and synced) p50 ${pct(acks, 0.5).toFixed(1)} ms p99 ${pct(acks, 0.99).toFixed(1)} ms; webhook at the receiver p50 ${steadyHearth.p50.toFixed(1)} ms p99 ${steadyHearth.p99.toFixed(1)} ms`,
    );
  }
  if (halfLoad) console.log(`  at ${steadyHearth.target.split('@')[1]}, Hearth's event loop: ${pausesLine(halfLoad)} (${halfLoadWindow.join(' to ')} UTC)`);
  if (halfLoadSplit) for (const line of commitSplitLines(`  at ${steadyHearth.target.split('@')[1]}, in Hearth`, halfLoadSplit)) console.log(line);
  if (stage) {
    console.log(
      `  delivery stage alone (queue filled, then drained): ${fmt(stage.perSecond)} events/s = ${(stage.perSecond / stage.bare).toFixed(2)}x of bare node:http`,
    );
    console.log(
      `  delivery stage alone: Hearth ${fmt(stage.hearthMicros)} µs CPU per delivery (main thread ${fmt(stage.threads.main)} µs, sender thread ${fmt(stage.threads['busiest worker'])} µs)`,
    );
    for (const line of threadKindLines('  delivery stage alone, Hearth per delivery', stage.threads, 'sender thread')) console.log(line);
  }
  return {
    pass,
    summary: `hearth ${Math.round(mqttRun.perSecond)} events/s (MQTT in), ${x.toFixed(2)}x of a bare node:http POST loop; p50 ${steadyHearth.p50.toFixed(1)} ms p99 ${steadyHearth.p99.toFixed(1)} ms at ${steadyHearth.target.split('@')[1]}`,
  };
}
