// What the fleet bench's embedded and cluster parts share: the devices' keys, the load generator
// children (one source address each), the two ways of counting connected devices (the API's
// `isConnected=true` total and the `hearth_broker_connected_devices` gauge), waiting until a
// count is reached, and the latency of /healthz and of the API sampled during a storm.
// Every wait prints a progress line every 10 s (what it waits for, the count now) and gives up
// with both after its timeout, or once the count has not moved for 3 minutes: a step that can
// no longer finish says so instead of hanging (the 15,000-device run of the last round sat for
// 7 minutes without a word).
import { createHash } from 'node:crypto';
import { readOpenFileLimit, OPEN_FILES_RESERVE } from '../../../src/config/open-files.js';
import { forkChild, type Child } from '../baselines/brokers.js';
import type { Failures, FleetClient, FleetJob } from '../baselines/fleet-load.js';

function num(name: string, dflt: number, min = 1): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? dflt : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}, got ${raw}`);
  return n;
}

/** hard open-file limit of the processes this bench starts (they inherit it; Node raises the soft limit to it) */
export function fileLimit(): number {
  const l = readOpenFileLimit();
  return l?.hard ?? l?.soft ?? 1_000_000;
}

/**
 * devices per broker of the cluster part when BENCH_FLEET_CLUSTER_DEVICES is unset: 15,000, or
 * fewer when the killed broker's devices, spread over the others, would not fit in their open
 * files (4 brokers x 15,000 leaves 20,000 each on 3: over a hard limit of 20,000)
 */
export function defaultPerBroker(brokers: number, limit = fileLimit()): number {
  if (brokers < 2) return 15_000;
  const fits = Math.floor((((limit - OPEN_FILES_RESERVE) * (brokers - 1)) / brokers) * 0.95);
  return Math.max(1, Math.min(15_000, fits >= 1000 ? Math.floor(fits / 1000) * 1000 : fits));
}

export const settings = () => ({
  sizes: (process.env.BENCH_FLEET_SIZES ?? '1000,5000,15000').split(',').map((x, i) => {
    const n = Number(x.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`BENCH_FLEET_SIZES: item ${i + 1} (${x}) is not a positive integer`);
    return n;
  }),
  generators: num('BENCH_FLEET_GENERATORS', 4),
  /** connections between TCP connect and SUBACK, per generator */
  inflight: num('BENCH_FLEET_INFLIGHT', 100),
  brokers: num('BENCH_FLEET_CLUSTER_BROKERS', 4),
  perBroker: num('BENCH_FLEET_CLUSTER_DEVICES', defaultPerBroker(num('BENCH_FLEET_CLUSTER_BROKERS', 4))),
  /** the admission rate of the storm "with" it; 0: the configured default */
  rate: num('BENCH_FLEET_RATE', 0, 0),
  modes: (process.env.BENCH_FLEET_MODES ?? 'embedded,cluster').split(',').map((s) => s.trim()),
  /**
   * rounds of Hearth and bare Aedes at each embedded size, back to back, the order alternating
   * (Hearth first in odd rounds); the ratios printed are the medians of the rounds' own ratios.
   * Unset: 3 up to 5,000 devices, 2 above (the largest size's first round also runs the storms)
   */
  rounds: process.env.BENCH_FLEET_ROUNDS ? num('BENCH_FLEET_ROUNDS', 3) : undefined,
  /** the drop and the three storms at the largest embedded size; 0: the scaling curve only (profiles, A/B at a small N) */
  storms: num('BENCH_FLEET_STORMS', 1, 0) > 0,
  /** extra Node flags of the embedded servers, Hearth's and bare Aedes's alike (V8 experiments: `--max-semi-space-size=2`, `--single-threaded-gc`) */
  nodeFlags: (process.env.BENCH_FLEET_NODE_FLAGS ?? '').split(' ').filter(Boolean),
});
export type Settings = ReturnType<typeof settings>;

/** the rounds of Hearth and bare Aedes at n devices (Settings.rounds) */
export const roundsAt = (s: Pick<Settings, 'rounds'>, n: number): number => s.rounds ?? (n <= 5000 ? 3 : 2);

/** keys both sides compute: the store seeds their hashes, the generators present them */
export const keyOf = (i: number): string => 'dk.' + createHash('sha256').update(`hearth-bench-fleet-${i}`).digest('base64url');

export interface Generators {
  children: Child[];
  /**
   * opens every client (split evenly, in order, over the generators); resolves when all have their
   * SUBACK. A progress line every 10 s (up so far, refusals); gives up after timeoutMs (waitMs of
   * the number of clients) or when no client came up for 3 minutes, naming the count reached.
   */
  connect(ports: number[], clients: FleetClient[], reconnect: boolean, timeoutMs?: number): Promise<{ ms: number; connack: number[]; failures: Failures }>;
  drop(): Promise<void>;
  reconnect(): Promise<void>;
  /** connections between TCP connect and SUBACK per generator from now on */
  setInflight(inflight: number): Promise<void>;
  /** connected now, commands received so far, and the failures since the last reset */
  status(reset?: boolean): Promise<{ up: number; lost: number; commands: number; failures: Failures }>;
  close(): Promise<void>;
}

const sumFailures = (list: Failures[]): Failures =>
  list.reduce((a, f) => ({
    tcpRefused: a.tcpRefused + f.tcpRefused,
    closedBeforeConnack: a.closedBeforeConnack + f.closedBeforeConnack,
    connackRefused: a.connackRefused + f.connackRefused,
    subscribeRefused: a.subscribeRefused + f.subscribeRefused,
    localPortInUse: a.localPortInUse + f.localPortInUse,
  }));

/** how long a step with n devices may take: 2 minutes, plus 40 ms a device (25 a second: far below any rate measured, even at a load average of 30) */
export const waitMs = (n: number): number => 120_000 + 40 * n;

const PROGRESS_EVERY_MS = 10_000;
/** a wait whose state has not changed for this long cannot be expected to finish */
const STALL_MS = 180_000;

/** the state of a wait: done or not, and what it stands at (printed while waiting and when it gives up) */
export interface Progress {
  done: boolean;
  now: string;
}

/** `label v of n`, done when v === n */
export const reached = (label: string, value: number, target: number): Progress => ({
  done: value === target,
  now: `${label} ${fmt(value)} of ${fmt(target)}`,
});

/** done when every part is */
export const allOf = (...parts: Progress[]): Progress => ({ done: parts.every((p) => p.done), now: parts.map((p) => p.now).join(', ') });

/** progress lines and the verdict on a wait: call update(now) with the state; it throws when the wait should give up */
class Watch {
  private last = '';
  private changed: number;
  private printed: number;

  constructor(
    private readonly what: string,
    private readonly since: number,
    private readonly timeoutMs: number,
  ) {
    this.changed = this.printed = performance.now();
  }

  /** `counted`: `now` is a count that moves while the wait makes progress (a bare "not yet" is not) */
  update(now: string, counted = true): void {
    const t = performance.now();
    if (now !== this.last || !counted) ((this.last = now), (this.changed = t));
    if (t - this.printed >= PROGRESS_EVERY_MS) {
      this.printed = t;
      console.log(`    .. ${this.what}: ${now} after ${secs(t - this.since)} s`);
    }
    if (t - this.since > this.timeoutMs) throw new WaitTimeout(`${this.what}: not reached within ${secs(this.timeoutMs)} s (${now})`, now);
    if (t - this.changed > STALL_MS) throw new WaitTimeout(`${this.what}: no change for ${secs(STALL_MS)} s (${now})`, now);
  }
}

/** a wait that gave up: `now` is where it stood */
export class WaitTimeout extends Error {
  constructor(
    message: string,
    readonly now: string,
  ) {
    super(message);
  }
}

export async function startGenerators(n: number, inflight: number): Promise<Generators> {
  const children = await Promise.all(Array.from({ length: n }, () => forkChild('./fleet-load.ts')));
  const all = <T>(msg: object, reply: string, timeoutMs = 120_000) => Promise.all(children.map((c) => c.request<T>(msg, reply, timeoutMs)));
  const status = async (reset = false) => {
    const r = await all<{ up: number; lost: number; commands: number; failures: Failures }>({ type: 'status', reset }, 'status');
    const sum = (k: 'up' | 'lost' | 'commands') => r.reduce((a, x) => a + x[k], 0);
    return { up: sum('up'), lost: sum('lost'), commands: sum('commands'), failures: sumFailures(r.map((x) => x.failures)) };
  };
  return {
    children,
    async connect(ports, clients, reconnect, timeoutMs = waitMs(clients.length)) {
      const per = Math.ceil(clients.length / n);
      const t0 = performance.now();
      let finished = false;
      const jobs = Promise.all(
        children.map((c, g) => {
          const job: FleetJob = {
            type: 'connect',
            ports,
            localAddress: `127.0.0.${2 + g}`,
            clients: clients.slice(g * per, (g + 1) * per),
            inflight,
            keepalive: 60,
            reconnect,
          };
          // the watch below gives up first; this only catches a generator that stopped answering
          return c.request<{ connack: number[]; failures: Failures }>(job, 'connected', timeoutMs + 60_000);
        }),
      ).finally(() => (finished = true));
      // when the watch gives up first, the generators are closed by the caller: their late answer is nobody's
      jobs.catch(() => undefined);
      // while they connect: the count so far, every 10 s
      const watch = new Watch(`connect of ${fmt(clients.length)} devices`, t0, timeoutMs);
      const watching = (async () => {
        while (!finished) {
          await new Promise((r) => setTimeout(r, 1000));
          if (finished) return;
          const st = await status().catch(() => undefined);
          if (!st || finished) continue;
          watch.update(`up ${fmt(st.up)} of ${fmt(clients.length)}, refused so far ${fmt(refusedOf(st.failures))}, TCP refused ${fmt(st.failures.tcpRefused)}`);
        }
      })();
      const r = await Promise.race([jobs, watching.then(() => jobs)]);
      return { ms: performance.now() - t0, connack: r.flatMap((x) => x.connack).sort((a, b) => a - b), failures: sumFailures(r.map((x) => x.failures)) };
    },
    drop: async () => void (await all({ type: 'drop' }, 'dropped')),
    reconnect: async () => void (await all({ type: 'reconnect' }, 'reconnecting')),
    setInflight: async (inflight) => void (await all({ type: 'inflight', inflight }, 'inflight')),
    status,
    close: async () => void (await Promise.all(children.map((c) => c.close()))),
  };
}

export const quantile = (sorted: number[], q: number): number => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

/** devices of project 1 the API says are connected (the list's range header total) */
export async function apiConnected(httpPort: number, adminKey: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${httpPort}/devices?projectId=1&isConnected=true&limit=1`, { headers: { authorization: `ModeCloud ${adminKey}` } });
  await r.arrayBuffer();
  const range = r.headers.get('vnd.tinkermode.range');
  if (r.status !== 200 || !range) throw new Error(`GET /devices?isConnected=true answered ${r.status}`);
  return Number(range.split('/')[1]);
}

/**
 * how often a wait reads /metrics: a scrape costs the server about 20 ms of CPU at 5,000 devices
 * (prom-client's process metrics walk every handle and open file), so reading it every 100 ms
 * was a fifth of the server's CPU during a connect storm (a profile of the 5,000-device storm)
 */
export const GAUGE_EVERY_MS = 1000;

/** one node's /metrics, the value of each series as it is printed there (`name{label="value"}`); NaN for one it does not print */
export async function metricValues(httpPort: number, ...series: string[]): Promise<number[]> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  return series.map((s) => Number(new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN));
}

/** the event pipeline's transactions and the events in them so far (hearth_event_commits_total, _commit_items_total) */
export async function commitCounts(httpPort: number): Promise<{ commits: number; items: number }> {
  const [commits, items] = await metricValues(httpPort, 'hearth_event_commits_total', 'hearth_event_commit_items_total');
  return { commits, items };
}

/** hearth_broker_connected_devices{transport="mqtt"} of one node; NaN when it does not answer */
export async function gauge(httpPort: number): Promise<number> {
  try {
    return (await metricValues(httpPort, 'hearth_broker_connected_devices{transport="mqtt"}'))[0];
  } catch {
    return NaN;
  }
}

/**
 * ms from `since` until check() is done (polled every `everyMs`). check() answers a Progress (what
 * it stands at, printed every 10 s while waiting) or a bare boolean. Throws a WaitTimeout naming
 * what it waited for and where it stood after timeoutMs, or when a Progress has not changed for
 * 3 minutes.
 */
export async function until(
  check: () => Promise<boolean | Progress>,
  what: string,
  since = performance.now(),
  timeoutMs = 1_200_000,
  everyMs = 100,
): Promise<number> {
  const watch = new Watch(what, since, timeoutMs);
  for (;;) {
    let counted = true;
    const p = await check().then(
      (x): Progress => (typeof x === 'boolean' ? ((counted = false), { done: x, now: x ? 'done' : 'not yet' }) : x),
      (e: Error): Progress => ({ done: false, now: `error: ${e.message}` }),
    );
    if (p.done) return performance.now() - since;
    watch.update(p.now, counted);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface Latency {
  count: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
}

/** GETs the URL every 100 ms (one at a time) until stopped: its latency during a storm */
export function probe(url: string, headers: Record<string, string> = {}): { stop(): Promise<Latency> } {
  const ms: number[] = [];
  let errors = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      try {
        const r = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
        await r.arrayBuffer();
        if (r.ok) ms.push(performance.now() - t0);
        else errors++;
      } catch {
        errors++;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      ms.sort((a, b) => a - b);
      return { count: ms.length, p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), max: ms[ms.length - 1] ?? NaN, errors };
    },
  };
}

export const fmt = (n: number, d = 0): string => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '-');
export const kib = (b: number): string => fmt(b / 1024, 1);
export const secs = (ms: number): string => fmt(ms / 1000, 1);
export const refusedOf = (f: Failures): number => f.closedBeforeConnack + f.connackRefused + f.subscribeRefused;
