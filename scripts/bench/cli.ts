// `npm run bench -- cli`: how long one admin CLI command takes (issue #16: under 0.5 s for a simple
// command on this machine), against node's own start (`node -e 0`), the floor no Node.js CLI
// goes under. Each command runs BENCH_CLI_RUNS times (default 15), interleaved, on a data
// directory made once (a project, a key, a device), with
//   - the bundle in dist/scripts/admin/ (scripts/build.mjs) called through node,
//   - the same sources built one .js per .ts, as dist/ held them before the bundle, to show what
//     the bundle buys;
// and one command (`projects list`) the other ways a user starts it, each paying its launcher's
// own start on top (README.md#quickstart states these): `hearth-admin` (the `bin`, by its
// shebang), `npm run admin --` and `npx hearth-admin`.
// Wall time is what a user waits for, and moves with the machine's other load; CPU time (user +
// system, read by bash's `times` for the child) does much less, so the verdict is on CPU: the
// median command must stay under 500 ms, and the wall median is printed beside it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { buildServer, sourcesUnder } from '../build.mjs';
import type { BenchResult } from './lib/types.js';

const ROOT = resolve(import.meta.dirname, '../..');
const WORK = join(ROOT, '.tmp', 'bench-cli');
const LIMIT_MS = 500;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

/** runs `argv` once under bash, answering its wall time and its CPU (user + system) */
function timeOnce(argv: string[], env: NodeJS.ProcessEnv): Sample {
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const started = performance.now();
  // in the project, where `npm run admin` and `npx hearth-admin` find package.json
  const r = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1 || echo "exit $?" >&2; times`], { env, encoding: 'utf8', cwd: ROOT });
  const wallMs = performance.now() - started;
  if (r.status !== 0 || r.stderr.includes('exit ')) throw new Error(`${argv.join(' ')} failed: ${r.stderr}`);
  // `times`: the shell's user/system, then its children's: "0m0.210s 0m0.045s"
  const children = r.stdout.trim().split('\n')[1];
  const secs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wallMs, cpuMs: (secs[0] + secs[1]) * 1000 };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** the CLI's sources and the server's, one .js per .ts (dist/'s layout before the bundle): the
 * server's own build (scripts/build.mjs, which also copies config/default.json), plus the CLI's
 * sources compiled the same way */
async function buildPerFile(outdir: string): Promise<string> {
  await buildServer(outdir);
  const admin = [...sourcesUnder(join('scripts', 'admin')), join('scripts', 'admin.ts')];
  await build({ absWorkingDir: ROOT, entryPoints: admin, outdir, outbase: '.', format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
  return join(outdir, 'scripts', 'admin.js');
}

export async function run(): Promise<BenchResult> {
  const runs = Number(process.env.BENCH_CLI_RUNS ?? 15);
  const bundle = join(ROOT, 'dist', 'scripts', 'admin', 'main.js');
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const perFile = await buildPerFile(join(WORK, 'per-file'));
  const env: NodeJS.ProcessEnv = { ...process.env, HEARTH_DATA_DIR: join(WORK, 'data'), HEARTH_DATABASE_URL: '', HEARTH_REDIS_URL: '' };
  for (const k of Object.keys(env)) if (k.startsWith('HEARTH_') && env[k] === '') delete env[k];
  for (const args of [
    ['projects', 'create', 'bench'],
    ['keys', 'create', '1'],
    ['devices', 'create', '1'],
  ])
    timeOnce([process.execPath, bundle, ...args], env);

  const commands = [['--help'], ['projects', 'list'], ['devices', 'list', '1']];
  const targets = [
    { name: 'node -e 0', argv: (_: string[]) => [process.execPath, '-e', '0'], baseline: true },
    ...commands.flatMap((c) => [
      { name: `bundle ${c.join(' ')}`, argv: () => [process.execPath, bundle, ...c], baseline: false },
      { name: `per-file ${c.join(' ')}`, argv: () => [process.execPath, perFile, ...c], baseline: false },
    ]),
    { name: 'hearth-admin projects list', argv: () => [bundle, 'projects', 'list'], baseline: false },
    { name: 'npm run admin projects list', argv: () => ['npm', 'run', '--silent', 'admin', '--', 'projects', 'list'], baseline: false },
    { name: 'npx hearth-admin projects list', argv: () => ['npx', '--no-install', 'hearth-admin', 'projects', 'list'], baseline: false },
  ];
  const samples = new Map(targets.map((t) => [t.name, [] as Sample[]]));
  for (const t of targets) timeOnce(t.argv([]), env); // warm the file cache
  for (let i = 0; i < runs; i++) for (const t of targets) samples.get(t.name)!.push(timeOnce(t.argv([]), env));

  const base = samples.get('node -e 0')!;
  const baseWall = median(base.map((s) => s.wallMs));
  const baseCpu = median(base.map((s) => s.cpuMs));
  console.log(`  ${runs} runs each, interleaved; medians (min wall in brackets)`);
  console.log(`  ${'command'.padEnd(32)} ${'wall ms'.padStart(16)} ${'CPU ms'.padStart(8)} ${'wall x'.padStart(7)} ${'CPU x'.padStart(6)}`);
  for (const t of targets) {
    const s = samples.get(t.name)!;
    const wall = median(s.map((x) => x.wallMs));
    const cpu = median(s.map((x) => x.cpuMs));
    const min = Math.min(...s.map((x) => x.wallMs));
    console.log(
      `  ${t.name.padEnd(32)} ${`${wall.toFixed(0)} [${min.toFixed(0)}]`.padStart(16)} ${cpu.toFixed(0).padStart(8)} ${(wall / baseWall).toFixed(2).padStart(6)}x ${(cpu / baseCpu).toFixed(2).padStart(5)}x`,
    );
  }
  const worst = commands.map((c) => {
    const s = samples.get(`bundle ${c.join(' ')}`)!;
    return { c: c.join(' '), cpu: median(s.map((x) => x.cpuMs)), wall: median(s.map((x) => x.wallMs)) };
  });
  const slowest = worst.reduce((a, b) => (b.cpu > a.cpu ? b : a));
  const pass = slowest.cpu < LIMIT_MS;
  console.log(
    `  slowest command: ${slowest.c}, ${slowest.cpu.toFixed(0)} ms CPU, ${slowest.wall.toFixed(0)} ms wall  (limit ${LIMIT_MS} ms CPU: ${pass ? 'PASS' : 'FAIL'})`,
  );
  rmSync(WORK, { recursive: true, force: true });
  return {
    pass,
    summary: `admin CLI ${slowest.c}: ${slowest.cpu.toFixed(0)} ms CPU, ${slowest.wall.toFixed(0)} ms wall (node -e 0: ${baseCpu.toFixed(0)} ms CPU); limit ${LIMIT_MS} ms`,
  };
}
