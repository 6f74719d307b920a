// Runs autocannon in a CHILD PROCESS against a URL and returns its figures. A separate process
// gets its own core, so the load generator does not steal the event loop of the server under
// test (in-process autocannon would make every server look alike).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { LoadFigures } from './types.js';

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

/** one measured autocannon run */
async function once(target: string, url: string, o: { connections: number; seconds: number; headers: Record<string, string> }): Promise<LoadFigures> {
  // the servers under test run in this process and the load generator does not: this process's
  // CPU time per request is what a request costs, whatever else the machine is doing
  const cpu = process.cpuUsage();
  const r = await autocannon(url, o);
  const used = process.cpuUsage(cpu);
  return {
    cpuMicrosPerRequest: (used.user + used.system) / Math.max(1, r.requests.total),
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

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Several targets measured in alternating rounds (A B C A B C ...), each round a slice of the
 * duration, and the median of each figure kept. On a shared machine the load of other processes
 * drifts over a run: alternating spreads that drift over every target instead of penalising
 * whichever happened to run during a busy stretch.
 */
export async function measureInterleaved(targets: { target: string; url: string }[], o: LoadOptions & { rounds: number }): Promise<LoadFigures[]> {
  const headers = o.headers ?? {};
  for (const t of targets) await autocannon(t.url, { connections: o.connections, seconds: o.warmupSeconds, headers });
  const runs = new Map<string, LoadFigures[]>(targets.map((t) => [t.target, []]));
  const seconds = Math.max(1, Math.round(o.durationSeconds / o.rounds));
  for (let round = 0; round < o.rounds; round++) {
    for (const t of targets) runs.get(t.target)!.push(await once(t.target, t.url, { connections: o.connections, seconds, headers }));
  }
  return targets.map(({ target }) => {
    const rs = runs.get(target)!;
    const sum = (f: (r: LoadFigures) => number) => rs.reduce((a, r) => a + f(r), 0);
    return {
      target,
      requestsPerSecond: median(rs.map((r) => r.requestsPerSecond)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpuMicrosPerRequest: median(rs.map((r) => r.cpuMicrosPerRequest)),
      requests: sum((r) => r.requests),
      errors: sum((r) => r.errors),
      non2xx: sum((r) => r.non2xx),
    };
  });
}
