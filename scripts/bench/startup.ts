// `npm run bench -- startup`: cold start to healthy (the first 200 from /healthz) and resident
// memory once healthy, of
//   - the built server as `npm start` runs it (`node dist/src/main.js`), and through npm itself,
//   - the old way, the TypeScript sources through tsx (`tsx src/main.ts`: the tsx CLI and its
//     node child),
//   - a bare Hono server (baselines/bare-hono.ts, compiled, started with node the same way),
// each several times, interleaved, every Hearth start on a fresh data directory (so it runs its
// migrations and first-start bootstrap). Memory is read from /proc: the whole process group the
// command started (npm, the tsx wrapper...) and its largest process (the server). Ratios are
// against the bare Hono server. BENCH_STARTUP_RUNS (default 5) sets the runs per target;
// BENCH_STARTUP_TSC=1 adds the same sources compiled by tsc instead of esbuild (the choice of
// build tool: dist/ is esbuild's), with both build times.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { freePort } from './baselines/brokers.js';
import type { BenchResult } from './lib/types.js';

const ROOT = resolve(import.meta.dirname, '../..');
const WORK = join(ROOT, '.tmp', 'bench-startup');

interface Target {
  name: string;
  command: string;
  args: string[];
  /** the bare server needs no data directory */
  hearth: boolean;
}

interface Run {
  ms: number;
  groupRss: number;
  serverRss: number;
}

/** pids whose process group is `pgid` (a detached child leads its own group) */
function groupOf(pgid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const fields = readFileSync(`/proc/${e}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
      if (Number(fields[2]) === pgid) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function rssOf(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

async function startOnce(t: Target): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-startup-'));
  const httpPort = await freePort();
  const mqttPort = await freePort();
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEARTH_') && !k.startsWith('npm_')));
  Object.assign(env, {
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: String(httpPort),
    HEARTH_MQTT_PORT: String(mqttPort),
    HEARTH_DATA_DIR: dataDir,
    HEARTH_LOG_LEVEL: 'warn',
  });
  let out = '';
  const started = performance.now();
  const child = spawn(t.command, t.args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${t.name} exited with ${child.exitCode}: ${out}`);
      if (await healthy(httpPort)) break;
      if (performance.now() - started > 60_000) throw new Error(`${t.name} not healthy within 60 s: ${out}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = performance.now() - started;
    const rss = groupOf(child.pid!).map(rssOf);
    return { ms, groupRss: rss.reduce((a, b) => a + b, 0), serverRss: Math.max(...rss) };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    const end = Date.now() + 15_000;
    while (groupOf(child.pid!).length && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    if (groupOf(child.pid!).length) process.kill(-child.pid!, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function timed(what: string, command: string, args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr}${r.stdout}`);
  return performance.now() - t0;
}

/** the same sources compiled by tsc, for the choice of build tool */
function buildWithTsc(): number {
  const dir = join(WORK, 'tsc');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const config = join(WORK, 'tsconfig.tsc.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: '../../tsconfig.json',
      compilerOptions: { noEmit: false, outDir: './tsc', rootDir: '../..' },
      include: ['../../src', '../../broker'],
    }),
  );
  const ms = timed('tsc', process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config]);
  mkdirSync(join(dir, 'config'), { recursive: true });
  cpSync(join(ROOT, 'config/default.json'), join(dir, 'config/default.json'));
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (b: number) => (b / 1024 / 1024).toFixed(0);

export async function run(): Promise<BenchResult> {
  mkdirSync(WORK, { recursive: true });
  const runs = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
  const buildMs = timed('npm run build', process.execPath, [join(ROOT, 'scripts/build.mjs')]);
  console.log(`  build (esbuild, scripts/build.mjs): ${(buildMs / 1000).toFixed(2)} s`);
  await build({
    entryPoints: [join(ROOT, 'scripts/bench/baselines/bare-hono.ts')],
    outfile: join(WORK, 'bare-hono.js'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  const targets: Target[] = [
    { name: 'bare Hono (node)', command: process.execPath, args: [join(WORK, 'bare-hono.js')], hearth: false },
    { name: 'built (node dist)', command: process.execPath, args: ['dist/src/main.js'], hearth: true },
    { name: 'built (npm start)', command: 'npm', args: ['start', '--silent'], hearth: true },
    { name: 'tsx src/main.ts', command: join(ROOT, 'node_modules/.bin/tsx'), args: ['src/main.ts'], hearth: true },
  ];
  if (process.env.BENCH_STARTUP_TSC === '1') {
    const tscMs = buildWithTsc();
    console.log(`  build (tsc, same sources):          ${(tscMs / 1000).toFixed(2)} s`);
    targets.push({ name: 'tsc output (node)', command: process.execPath, args: [join(WORK, 'tsc/src/main.js')], hearth: true });
  }
  const results = new Map<string, Run[]>(targets.map((t) => [t.name, []]));
  for (let i = 0; i < runs; i++) for (const t of targets) results.get(t.name)!.push(await startOnce(t));

  const base = results.get(targets[0].name)!;
  const baseMs = median(base.map((r) => r.ms));
  const baseRss = median(base.map((r) => r.serverRss));
  console.log(
    `  ${'target'.padEnd(20)} ${'healthy ms (median, min-max)'.padStart(30)} ${'group RSS MB'.padStart(13)} ${'server RSS MB'.padStart(14)} ${'time x'.padStart(7)} ${'RSS x'.padStart(6)}`,
  );
  const row: Record<string, { ms: number; group: number; server: number }> = {};
  for (const t of targets) {
    const rs = results.get(t.name)!;
    const ms = median(rs.map((r) => r.ms));
    const group = median(rs.map((r) => r.groupRss));
    const server = median(rs.map((r) => r.serverRss));
    row[t.name] = { ms, group, server };
    const range = `${ms.toFixed(0)} (${Math.min(...rs.map((r) => r.ms)).toFixed(0)}-${Math.max(...rs.map((r) => r.ms)).toFixed(0)})`;
    console.log(
      `  ${t.name.padEnd(20)} ${range.padStart(30)} ${mb(group).padStart(13)} ${mb(server).padStart(14)} ${(ms / baseMs).toFixed(2).padStart(6)}x ${(server / baseRss).toFixed(2).padStart(5)}x`,
    );
  }
  const built = row['built (node dist)'];
  const old = row['tsx src/main.ts'];
  const pass = built.ms < old.ms && built.group < old.group;
  return {
    pass,
    summary: `built ${built.ms.toFixed(0)} ms / ${mb(built.group)} MB (${(built.ms / baseMs).toFixed(1)}x bare Hono) vs tsx ${old.ms.toFixed(0)} ms / ${mb(old.group)} MB; ${(old.ms / built.ms).toFixed(1)}x faster to healthy`,
  };
}
