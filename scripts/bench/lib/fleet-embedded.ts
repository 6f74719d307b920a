// The fleet bench's embedded part: Hearth alone in a child process (baselines/server.ts, SQLite,
// every role), N devices seeded with their own keys, the generators opening them all at once.
// Measured per size: connects/s, CONNACK p50/p99, resident memory and live heap per device, and
// how long after the storm began the API's isConnected count and the gauge reached N. At the
// largest size the fleet then drops at once (time until both read 0), comes back to the running
// node, and Hearth restarts twice with every device reconnecting: admission control off, then on
// (limits.connectRatePerSecond), with /healthz and API latency sampled and refusals counted.
// These storms are the whole fleet at once, as after a real restart or network blip: the
// generators' in-flight cap is lifted to every device they hold. (With the cap of the first
// connect, 4 x 100, the arrivals were paced by the server's own answers and never outran a rate
// of 500/s with a bucket 500 deep: the restart storm reported "held 0".) Refusals count against
// the verdict only with admission control on; without it they are the collapse it prevents.
// The same generators then open the same N against bare Aedes and Mosquitto.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { cpuByThreadOf, cpuMicrosOf, forkChild, rssOf, startMosquitto, threadCpuLine } from '../baselines/brokers.js';
import type { Failures, FleetClient } from '../baselines/fleet-load.js';
import {
  apiConnected,
  commitCounts,
  metricValues,
  fmt,
  gauge,
  kib,
  GAUGE_EVERY_MS,
  keyOf,
  probe,
  quantile,
  reached,
  startGenerators,
  until,
  waitMs,
  WaitTimeout,
  type Latency,
  type Settings,
} from './fleet.js';

export interface ConnectFigures {
  target: string;
  n: number;
  ms: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** resident memory per device, bytes */
  rssPerDevice: number;
  heapPerDevice?: number;
  /** the server process's CPU (user + system, all threads) from the storm's start until every device was up, per device, µs */
  cpuPerConnect: number;
  /** the same by kind of thread, `kind user+system` µs per device (threadCpuLine) */
  cpuThreads?: string;
  /** a node server's CPU µs per device by what its threads do (kindsLineOf): main, V8 platform, libuv pool, workers */
  cpuKinds?: string;
  /** where the resident memory went, per device (a node server: V8's heap, what it holds outside, the young generation) */
  memoryLine?: string;
  /** the same by kind of mapping and by V8 space (partsLineOf) */
  partsLine?: string;
  /** Hearth: the pipeline's transactions during the storm and the events (presence flips) per transaction */
  commitsLine?: string;
  /**
   * Hearth: of cpuPerConnect, what the bench's own reads during the storm cost the server (the
   * API's count and /metrics, until both read N), µs per device: bare Aedes has neither to answer
   */
  pollingPerConnect?: number;
  /** the server's CPU a second while only those reads run (every device connected), µs */
  pollingPerSecond?: number;
  /** from the storm's start until the API / the gauge counted N */
  apiMs?: number;
  gaugeMs?: number;
  failures: Failures;
}

export interface StormFigures {
  label: string;
  /** from the restart (or the reconnect) until the API and the gauge count N (NaN: not within the wait) */
  apiMs: number;
  gaugeMs: number;
  /** where the counts stood when the wait gave up (the storm did not finish in time) */
  gaveUp?: string;
  healthz: Latency;
  api: Latency;
  failures: Failures;
  held?: number;
}

export interface LargestFigures {
  offlineApiMs: number;
  offlineGaugeMs: number;
  storms: StormFigures[];
}

/** a node server's CPU µs so far by kind of thread (baselines/server.ts `threads`) */
type Kinds = Record<'main' | 'V8 platform' | 'libuv pool' | 'worker', number>;

/** µs per device each kind of thread used between two readings */
const kindsLineOf = (a: Kinds, b: Kinds, n: number): string =>
  (['main', 'V8 platform', 'libuv pool', 'worker'] as const).map((k) => `${k === 'worker' ? 'workers' : k} ${fmt((b[k] - a[k]) / n)}`).join(', ');

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal?: number;
  external?: number;
  arrayBuffers?: number;
  newSpace?: number;
  /** collections the measure took before the young generation was back to its idle size (24: it was not) */
  rounds?: number;
  /** V8's spaces: committed and used bytes */
  spaces?: Record<string, { size: number; used: number }>;
  /** resident bytes by kind of mapping (server.ts smapsByKind) */
  mappings?: Record<string, number>;
}

/** resident, V8 heap committed and used, external (Buffers...) per device; the collections the measure after took; the young generation before → after */
const memoryLineOf = (a: Memory, b: Memory, n: number): string | undefined =>
  b.heapTotal === undefined
    ? undefined
    : `rss ${kib((b.rss - a.rss) / n)}, heap committed ${kib((b.heapTotal - a.heapTotal!) / n)}, heap used ${kib((b.heapUsed - a.heapUsed) / n)}, external ${kib((b.external! - a.external!) / n)} KiB per device; rss outside the heap ${kib((b.rss - a.rss - (b.heapTotal - a.heapTotal!)) / n)} KiB; measured after ${b.rounds ?? '?'} collections; young generation ${kib(a.newSpace ?? NaN)} → ${kib(b.newSpace ?? NaN)} KiB`;

/** per device, KiB: each kind of mapping's resident growth, and each V8 space's committed (and used) growth */
const partsLineOf = (a: Memory, b: Memory, n: number): string | undefined => {
  if (!a.mappings || !b.mappings || !a.spaces || !b.spaces) return undefined;
  const maps = Object.keys(b.mappings).map((k) => `${k} ${kib((b.mappings![k] - (a.mappings![k] ?? 0)) / n)}`);
  const short = (name: string) => name.replace(/_space$/, '').replace(/_/g, '-');
  const spaces = Object.keys(b.spaces)
    .filter((k) => b.spaces![k].size || a.spaces![k]?.size)
    .map((k) => `${short(k)} ${kib((b.spaces![k].size - (a.spaces![k]?.size ?? 0)) / n)} (${kib((b.spaces![k].used - (a.spaces![k]?.used ?? 0)) / n)})`);
  return `resident by mapping ${maps.join(', ')}; V8 spaces committed (used) ${spaces.join(', ')} KiB per device`;
};

/**
 * Before the "before" reading every server takes a warm-up: 1% of the fleet (1 to 100 devices)
 * connects, subscribes and drops again (Hearth: until the API and the gauge read 0). What a server
 * does once, not per device (code compiled for the connect path, statements prepared, the
 * database's first pages read, the young generation grown to its working size), then lands before
 * the reading instead of being divided over the fleet as if each device cost it; the storm
 * connects the warm-up devices again with the rest. Bare Aedes gets the same warm-up.
 */
const warmUpSize = (n: number): number => Math.min(100, Math.max(1, Math.floor(n / 100)));

async function warmUp(
  gens: Awaited<ReturnType<typeof startGenerators>>,
  port: number,
  n: number,
  creds: boolean,
  settled?: () => Promise<void>,
): Promise<void> {
  const w = warmUpSize(n);
  await gens.connect(
    [port],
    clientsOf(w, (i) => i + 1, creds),
    false,
    waitMs(w),
  );
  await gens.drop();
  await until(async () => (await gens.status()).up === 0, 'warm-up: generators closed');
  await settled?.();
  // the warm-up's counts are not the storm's
  await gens.status(true);
}

const clientsOf = (n: number, ids: (i: number) => number, creds: boolean): FleetClient[] =>
  Array.from({ length: n }, (_, i) => ({
    ...(creds ? { username: String(ids(i)), password: keyOf(i) } : {}),
    clientId: `fleet-${i}`,
    deviceId: ids(i),
    port: 0,
  }));

const heldOf = async (httpPort: number): Promise<number> => (await metricValues(httpPort, 'hearth_listener_connections_held_total{listener="MQTT"}'))[0];

/** Hearth at one size; at the largest (with storms on) also the drop and the restart storms */
export async function hearthAt(s: Settings, n: number, stormRate: number, largest: boolean): Promise<{ connect: ConnectFigures; largest?: LargestFigures }> {
  const server = await forkChild('./server.ts', [], ['--expose-gc', '--max-old-space-size=4096', ...s.nodeFlags]);
  const gens = await startGenerators(s.generators, s.inflight);
  // the generators are many devices behind one address each: the per-address cap of sockets not
  // signed in yet must not be what is measured; admission control off unless a storm turns it on
  // a storm puts every device of a generator in flight (n / generators per address)
  const env = (rate: number) => ({
    HEARTH_LIMITS_UNAUTHENTICATED_SOCKETS_PER_ADDRESS: String(Math.max(100, s.inflight * 4, Math.ceil(n / s.generators) + 1)),
    HEARTH_LIMITS_CONNECT_RATE_PER_SECOND: String(rate),
  });
  const wait = waitMs(n);
  try {
    const keys = Array.from({ length: n }, (_, i) => keyOf(i));
    const started = await server.request<{ port: number; httpPort: number; adminKey: string }>(
      { type: 'start', mode: 'hearth', keys, env: env(0) },
      'started',
      600_000,
    );
    const { port, httpPort, adminKey } = started;
    await warmUp(gens, port, n, true, async () => {
      await until(async () => reached('API isConnected', await apiConnected(httpPort, adminKey), 0), 'warm-up: API count 0');
      await until(async () => reached('gauge', await gauge(httpPort), 0), 'warm-up: gauge 0', undefined, undefined, GAUGE_EVERY_MS);
    });
    const before = await server.request<Memory>({ type: 'measure' }, 'memory');
    const commits0 = await commitCounts(httpPort);
    // BENCH_PROFILE=<dir>: a CPU profile of the server during this connect storm (until both counts are N)
    const profile = process.env.BENCH_PROFILE;
    if (profile) await server.request({ type: 'profile', action: 'start' }, 'profiling');
    const kinds0 = await server.request<Kinds>({ type: 'threads' }, 'threads');
    const cpu0 = cpuMicrosOf(server.proc.pid!);
    const threads0 = cpuByThreadOf(server.proc.pid!);
    const t0 = performance.now();
    const apiN = until(async () => reached('API isConnected', await apiConnected(httpPort, adminKey), n), 'API count', t0, wait);
    const gaugeN = until(async () => reached('gauge', await gauge(httpPort), n), 'gauge', t0, wait, GAUGE_EVERY_MS);
    // both waits settle before anything throws: a rejection left behind would end the bench unhandled
    const counted = Promise.allSettled([apiN, gaugeN]);
    // a fresh store numbers its devices 1..N in seeding order
    const c = await gens.connect(
      [port],
      clientsOf(n, (i) => i + 1, true),
      true,
      wait,
    );
    const cpu = cpuMicrosOf(server.proc.pid!) - cpu0;
    const cpuThreads = threadCpuLine(threads0, cpuByThreadOf(server.proc.pid!), n);
    const cpuKinds = kindsLineOf(kinds0, await server.request<Kinds>({ type: 'threads' }, 'threads'), n);
    const [apiMs, gaugeMs] = settledOrThrow(await counted);
    const commits1 = await commitCounts(httpPort);
    const tx = commits1.commits - commits0.commits;
    const items = commits1.items - commits0.items;
    if (profile) {
      const file = resolve(profile, `fleet-hearth-${n}-connect-${Date.now()}.cpuprofile`);
      await server.request({ type: 'profile', action: 'stop', file }, 'profiled', 120_000);
      console.log(`  CPU profile of the server during the connect storm: ${file}`);
    }
    const after = await server.request<Memory>({ type: 'measure' }, 'memory');
    // read until both counts were N: the longer of the two waits
    const pollingPerSecond = await pollingCost(server.proc.pid!, httpPort, adminKey);
    const connect: ConnectFigures = {
      target: 'hearth',
      n,
      ms: c.ms,
      perSecond: n / (c.ms / 1000),
      p50: quantile(c.connack, 0.5),
      p99: quantile(c.connack, 0.99),
      rssPerDevice: (after.rss - before.rss) / n,
      heapPerDevice: (after.heapUsed - before.heapUsed) / n,
      cpuPerConnect: cpu / n,
      cpuThreads,
      cpuKinds,
      memoryLine: memoryLineOf(before, after, n),
      partsLine: partsLineOf(before, after, n),
      commitsLine: `${fmt(tx)} transactions for ${fmt(items)} events (presence flips), ${fmt(items / tx, 1)} a transaction`,
      pollingPerSecond,
      pollingPerConnect: (pollingPerSecond * Math.max(apiMs, gaugeMs)) / 1000 / n,
      apiMs,
      gaugeMs,
      failures: c.failures,
    };
    if (!largest || !s.storms) return { connect };

    // every connection drops at once (the devices' side): until both counts read 0
    await gens.drop();
    // from here on every device of a generator reconnects at once (no in-flight cap)
    await gens.setInflight(Math.ceil(n / s.generators));
    const d0 = performance.now();
    const [offlineApiMs, offlineGaugeMs] = settledOrThrow(
      await Promise.allSettled([
        until(async () => reached('API isConnected', await apiConnected(httpPort, adminKey), 0), 'drop: API count 0', d0, wait),
        until(async () => reached('gauge', await gauge(httpPort), 0), 'drop: gauge 0', d0, wait, GAUGE_EVERY_MS),
      ]),
    );
    const storms: StormFigures[] = [];
    const storm = async (label: string, begin: () => Promise<void>, held: boolean) => {
      console.log(
        `  storm: ${label} (load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')})`,
      );
      await gens.status(true);
      const healthz = probe(`http://127.0.0.1:${httpPort}/healthz`);
      const api = probe(`http://127.0.0.1:${httpPort}/devices?projectId=1&limit=1`, { authorization: `ModeCloud ${adminKey}` });
      const s0 = performance.now();
      await begin();
      // a storm that does not finish in time is a figure (the collapse admission control is
      // there to prevent), not the end of the run: where it stood is printed, the next one starts
      const [a, g] = await Promise.allSettled([
        until(async () => reached('API isConnected', await apiConnected(httpPort, adminKey), n), `${label}: API count`, s0, wait),
        until(async () => reached('gauge', await gauge(httpPort), n), `${label}: gauge`, s0, wait, GAUGE_EVERY_MS),
      ]);
      const gaveUp = [a, g].flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
      for (const r of [a, g]) if (r.status === 'rejected' && !(r.reason instanceof WaitTimeout)) throw r.reason;
      const { failures } = await gens.status(true);
      storms.push({
        label,
        apiMs: a.status === 'fulfilled' ? a.value : NaN,
        gaugeMs: g.status === 'fulfilled' ? g.value : NaN,
        gaveUp: gaveUp.length ? gaveUp.join('; ') : undefined,
        healthz: await healthz.stop(),
        api: await api.stop(),
        failures,
        held: held ? await heldOf(httpPort) : undefined,
      });
    };
    // back to the running node, then Hearth restarts under them: off, then on
    await storm('reconnect to the running node', () => gens.reconnect(), false);
    await storm('restart, admission off', () => server.request({ type: 'restart', env: env(0) }, 'started', 600_000), false);
    await storm(`restart, admission ${fmt(stormRate)}/s`, () => server.request({ type: 'restart', env: env(stormRate) }, 'started', 600_000), true);
    return { connect, largest: { offlineApiMs, offlineGaugeMs, storms } };
  } finally {
    await gens.close();
    await server.close();
  }
}

/** how long pollingCost reads */
const POLLING_SAMPLE_MS = 5000;

/**
 * The server's CPU a second (µs) while the bench reads what its storm waits read, and nothing
 * else goes on: the API's connected count every 100 ms and /metrics every GAUGE_EVERY_MS (until()
 * reads one at a time, then waits). A storm's CPU per connect carries these reads for as long as
 * the waits run; bare Aedes answers none. Read once every device is connected: the count reads
 * the most index entries then, so this is the high end of what they cost during the storm.
 */
async function pollingCost(pid: number, httpPort: number, adminKey: string): Promise<number> {
  const cpu0 = cpuMicrosOf(pid);
  const t0 = performance.now();
  const end = t0 + POLLING_SAMPLE_MS;
  const every = async (read: () => Promise<unknown>, ms: number) => {
    while (performance.now() < end) {
      await read();
      await new Promise((r) => setTimeout(r, ms));
    }
  };
  await Promise.all([every(() => apiConnected(httpPort, adminKey), 100), every(() => gauge(httpPort), GAUGE_EVERY_MS)]);
  return ((cpuMicrosOf(pid) - cpu0) / (performance.now() - t0)) * 1000;
}

/** the values of waits that all succeeded; the first failure otherwise */
function settledOrThrow<T>(results: PromiseSettledResult<T>[]): T[] {
  for (const r of results) if (r.status === 'rejected') throw r.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/** bare Aedes (in its own process) or Mosquitto with the same N and generators */
export async function baselineAt(s: Settings, n: number, which: 'aedes' | 'mosquitto'): Promise<ConnectFigures | undefined> {
  const server = which === 'aedes' ? await forkChild('./server.ts', [], ['--expose-gc', '--max-old-space-size=4096', ...s.nodeFlags]) : undefined;
  const m = which === 'mosquitto' ? await startMosquitto() : undefined;
  if (!server && !m) return undefined;
  const gens = await startGenerators(s.generators, s.inflight);
  try {
    const port = server ? (await server.request<{ port: number }>({ type: 'start', mode: 'aedes' }, 'started')).port : m!.port;
    const memory = async () => (server ? await server.request<Memory>({ type: 'measure' }, 'memory') : { rss: rssOf(m!.pid), heapUsed: NaN });
    await warmUp(gens, port, n, false);
    const before = await memory();
    const pid = server ? server.proc.pid! : m!.pid;
    // BENCH_PROFILE=<dir>: bare Aedes's profile under the same generators, to set beside Hearth's
    const profile = server && process.env.BENCH_PROFILE;
    if (profile) await server.request({ type: 'profile', action: 'start' }, 'profiling');
    const kinds0 = server ? await server.request<Kinds>({ type: 'threads' }, 'threads') : undefined;
    const cpu0 = cpuMicrosOf(pid);
    const threads0 = cpuByThreadOf(pid);
    const c = await gens.connect(
      [port],
      clientsOf(n, (i) => i + 1, false),
      false,
      waitMs(n),
    );
    const cpu = cpuMicrosOf(pid) - cpu0;
    const cpuThreads = threadCpuLine(threads0, cpuByThreadOf(pid), n);
    const cpuKinds = server && kinds0 ? kindsLineOf(kinds0, await server.request<Kinds>({ type: 'threads' }, 'threads'), n) : undefined;
    if (profile) {
      const file = resolve(profile, `fleet-aedes-${n}-connect-${Date.now()}.cpuprofile`);
      await server.request({ type: 'profile', action: 'stop', file }, 'profiled', 120_000);
      console.log(`  CPU profile of bare Aedes during the connect storm: ${file}`);
    }
    if (m) await new Promise((r) => setTimeout(r, 500));
    const after = await memory();
    return {
      target: which === 'aedes' ? 'bare aedes' : 'mosquitto',
      n,
      ms: c.ms,
      perSecond: n / (c.ms / 1000),
      p50: quantile(c.connack, 0.5),
      p99: quantile(c.connack, 0.99),
      rssPerDevice: (after.rss - before.rss) / n,
      heapPerDevice: server ? (after.heapUsed - before.heapUsed) / n : undefined,
      cpuPerConnect: cpu / n,
      cpuThreads,
      cpuKinds,
      memoryLine: memoryLineOf(before, after, n),
      partsLine: partsLineOf(before, after, n),
      failures: c.failures,
    };
  } finally {
    await gens.close();
    await server?.close();
    await m?.close();
  }
}
