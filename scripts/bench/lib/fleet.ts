// What the fleet bench's embedded and cluster parts share: the devices' keys, the load generator
// children (one source address each), the two ways of counting connected devices (the API's
// `isConnected=true` total and the `hearth_broker_connected_devices` gauge), waiting until a
// count is reached, and the latency of /healthz and of the API sampled during a storm.
import { createHash } from 'node:crypto';
import { forkChild, type Child } from '../baselines/brokers.js';
import type { Failures, FleetClient, FleetJob } from '../baselines/fleet-load.js';

function num(name: string, dflt: number, min = 1): number {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? dflt : Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}, got ${raw}`);
  return n;
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
  perBroker: num('BENCH_FLEET_CLUSTER_DEVICES', 15_000),
  /** the admission rate of the storm "with" it; 0: the configured default */
  rate: num('BENCH_FLEET_RATE', 0, 0),
  modes: (process.env.BENCH_FLEET_MODES ?? 'embedded,cluster').split(',').map((s) => s.trim()),
});
export type Settings = ReturnType<typeof settings>;

/** keys both sides compute: the store seeds their hashes, the generators present them */
export const keyOf = (i: number): string => 'dk.' + createHash('sha256').update(`hearth-bench-fleet-${i}`).digest('base64url');

export interface Generators {
  children: Child[];
  /** opens every client (split evenly, in order, over the generators); resolves when all have their SUBACK */
  connect(ports: number[], clients: FleetClient[], reconnect: boolean): Promise<{ ms: number; connack: number[]; failures: Failures }>;
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
  }));

export async function startGenerators(n: number, inflight: number): Promise<Generators> {
  const children = await Promise.all(Array.from({ length: n }, () => forkChild('./fleet-load.ts')));
  const all = <T>(msg: object, reply: string, timeoutMs = 1_800_000) => Promise.all(children.map((c) => c.request<T>(msg, reply, timeoutMs)));
  return {
    children,
    async connect(ports, clients, reconnect) {
      const per = Math.ceil(clients.length / n);
      const t0 = performance.now();
      const r = await Promise.all(
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
          return c.request<{ connack: number[]; failures: Failures }>(job, 'connected', 1_800_000);
        }),
      );
      return { ms: performance.now() - t0, connack: r.flatMap((x) => x.connack).sort((a, b) => a - b), failures: sumFailures(r.map((x) => x.failures)) };
    },
    drop: async () => void (await all({ type: 'drop' }, 'dropped')),
    reconnect: async () => void (await all({ type: 'reconnect' }, 'reconnecting')),
    setInflight: async (inflight) => void (await all({ type: 'inflight', inflight }, 'inflight')),
    async status(reset = false) {
      const r = await all<{ up: number; lost: number; commands: number; failures: Failures }>({ type: 'status', reset }, 'status');
      const sum = (k: 'up' | 'lost' | 'commands') => r.reduce((a, x) => a + x[k], 0);
      return { up: sum('up'), lost: sum('lost'), commands: sum('commands'), failures: sumFailures(r.map((x) => x.failures)) };
    },
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

/** hearth_broker_connected_devices{transport="mqtt"} of one node; NaN when it does not answer */
export async function gauge(httpPort: number): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
    const m = /^hearth_broker_connected_devices\{transport="mqtt"\} (\S+)$/m.exec(text);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/** ms from `since` until check() is true (polled every 100 ms); throws after timeoutMs */
export async function until(check: () => Promise<boolean>, what: string, since = performance.now(), timeoutMs = 1_200_000): Promise<number> {
  for (;;) {
    const ok = await check().catch(() => false);
    if (ok) return performance.now() - since;
    if (performance.now() - since > timeoutMs) throw new Error(`${what}: not reached within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
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
