// Runs autocannon in a CHILD PROCESS against a URL and returns its figures. A separate process
// gets its own core, so the load generator does not steal the event loop of the server under
// test (in-process autocannon would make every server look alike).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { LoadFigures } from './types.js';
import { cpuByThreadKind, selfThreadMicros, type ThreadKind } from './proc-cpu.js';

const require = createRequire(import.meta.url);
const AUTOCANNON = require.resolve('autocannon/autocannon.js');

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
}

function autocannon(url: string, o: { connections: number; seconds: number; headers: Record<string, string> }): Promise<AutocannonJson> {
  const args = [AUTOCANNON, '--json', '-c', String(o.connections), '-d', String(o.seconds)];
  for (const [k, v] of Object.entries(o.headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited ${code}: ${err}`));
      try {
        resolve(JSON.parse(out) as AutocannonJson);
      } catch (e) {
        reject(new Error(`autocannon output is not JSON: ${(e as Error).message}\n${out.slice(0, 500)}`));
      }
    });
  });
}

type LoadOptions = { connections: number; durationSeconds: number; warmupSeconds: number; headers?: Record<string, string> };

/**
 * Until this process has gone quiet after a run (under 1 ms of CPU, every thread, in 25 ms; at
 * most a second): what the requests of a run left to do after the load generator stopped (Hearth's
 * last access-log batch, its writer thread's commit) is that run's CPU, and not the next run's,
 * which it would also take a core from. Before, it fell into the next run (bare Hono's, after
 * Hearth's: 1.4 µs a request of "access-log thread" in bare Hono's first round, 2026-11-28).
 */
async function quiet(): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const before = process.cpuUsage();
    await new Promise((r) => setTimeout(r, 25));
    const used = process.cpuUsage(before);
    if (used.user + used.system < 1000) return;
  }
}

/** one measured autocannon run; `kindOf`: also this process's CPU per request by kind of thread */
async function once(
  target: string,
  url: string,
  o: { connections: number; seconds: number; headers: Record<string, string> },
  kindOf?: (tid: number) => ThreadKind,
): Promise<LoadFigures> {
  // the servers under test run in this process and the load generator does not: this process's
  // CPU time per request is what a request costs, whatever else the machine is doing
  const cpu = process.cpuUsage();
  const threads0 = kindOf ? selfThreadMicros() : undefined;
  const r = await autocannon(url, o);
  await quiet();
  const used = process.cpuUsage(cpu);
  const total = Math.max(1, r.requests.total);
  return {
    cpuMicrosPerRequest: (used.user + used.system) / total,
    ...(threads0 ? { threads: cpuByThreadKind(threads0, selfThreadMicros(), kindOf!, total) } : {}),
    target,
    requestsPerSecond: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

/** a warm-up run (discarded), then the measured run */
export async function measure(target: string, url: string, o: LoadOptions): Promise<LoadFigures> {
  const headers = o.headers ?? {};
  await autocannon(url, { connections: o.connections, seconds: o.warmupSeconds, headers });
  return once(target, url, { connections: o.connections, seconds: o.durationSeconds, headers });
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Several targets measured in alternating rounds (A B C, C B A, A B C ...), each round a slice of
 * the duration, and the median of each figure kept (and each round's, `rounds`). On a shared machine
 * the load of other processes drifts over a run: alternating spreads that drift over every target
 * instead of penalising whichever happened to run during a busy stretch. `kindOf`: CPU per
 * request by kind of thread too (`threads`, medians of the rounds).
 */
export async function measureInterleaved(
  targets: { target: string; url: string }[],
  o: LoadOptions & { rounds: number; kindOf?: (tid: number) => ThreadKind },
): Promise<LoadFigures[]> {
  const headers = o.headers ?? {};
  for (const t of targets) await autocannon(t.url, { connections: o.connections, seconds: o.warmupSeconds, headers });
  const runs = new Map<string, LoadFigures[]>(targets.map((t) => [t.target, []]));
  const seconds = Math.max(1, Math.round(o.durationSeconds / o.rounds));
  for (let round = 0; round < o.rounds; round++) {
    // the first target first in odd rounds (1st, 3rd...), last in even ones: next to the second
    // target either way, and neither always after the other
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const t of order) runs.get(t.target)!.push(await once(t.target, t.url, { connections: o.connections, seconds, headers }, o.kindOf));
  }
  return targets.map(({ target }) => {
    const rs = runs.get(target)!;
    const sum = (f: (r: LoadFigures) => number) => rs.reduce((a, r) => a + f(r), 0);
    const threads = rs[0].threads && Object.fromEntries(Object.keys(rs[0].threads).map((k) => [k, median(rs.map((r) => r.threads![k]))]));
    return {
      target,
      requestsPerSecond: median(rs.map((r) => r.requestsPerSecond)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuMicrosPerRequest: median(rs.map((r) => r.cpuMicrosPerRequest)),
      ...(threads ? { threads } : {}),
      requests: sum((r) => r.requests),
      errors: sum((r) => r.errors),
      non2xx: sum((r) => r.non2xx),
      rounds: rs,
    };
  });
}
