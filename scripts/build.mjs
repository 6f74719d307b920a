// The build: the server's TypeScript (src/, broker/) to JavaScript in dist/, one .js per .ts with
// the same layout (dist/src/main.js is the entry; worker threads load their sibling .js, see
// src/adapters/thread-boot.ts), plus the files the server reads at run time: config/default.json
// (src/config/load.ts finds it two levels above itself) and any non-TypeScript file under the
// source roots; then the web console into dist/console (scripts/build-console.ts, which the
// server serves at /console). `npm install` runs it (the `prepare` script); `npm run build` runs
// it again.
//
// esbuild, not tsc: it only strips types (tsc --noEmit checks them, in CI and before a commit),
// which takes well under a second where tsc's emit took tens of seconds on this machine, and the
// output starts as fast (`npm run bench -- startup`). Plain JavaScript so that it runs before
// anything is built and without tsx.
//
//   node scripts/build.mjs [--outdir DIR] [--server-only]   (DIR inside the project, so node_modules resolve)
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
/** source roots compiled for the server, one .js per .ts */
const ROOTS = ['src', 'broker'];
/** browser code is not server code: the web console is bundled on its own */
const SKIP = [join('src', 'console')];
/** read at run time relative to the compiled code */
const ASSETS = [join('config', 'default.json')];

/** every file under `dir` (relative to the project), the console's excepted */
function filesUnder(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (SKIP.includes(path)) return [];
    return e.isDirectory() ? filesUnder(path) : [path];
  });
}

/** the TypeScript sources under `dir` (declaration files excepted): what esbuild compiles */
export function sourcesUnder(dir) {
  return filesUnder(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
}

export async function buildServer(outdir = join(ROOT, 'dist')) {
  const started = performance.now();
  // the server's part only: dist/console is the console build's
  for (const dir of [...ROOTS, 'config', 'scripts']) rmSync(join(outdir, dir), { recursive: true, force: true });
  const files = ROOTS.flatMap(filesUnder);
  const sources = ROOTS.flatMap(sourcesUnder);
  await build({
    absWorkingDir: ROOT,
    entryPoints: sources,
    outdir,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const copied = [...files.filter((f) => !f.endsWith('.ts')), ...ASSETS];
  for (const f of copied) {
    mkdirSync(dirname(join(outdir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(outdir, f));
  }
  await buildAdmin(outdir);
  return { outdir, sources: sources.length, assets: copied.length, ms: performance.now() - started };
}

/**
 * The admin CLI, bundled (`node dist/scripts/admin/main.js`, `npm run admin`): a one-shot process
 * spends most of its life loading modules, and one file per source (several hundred, with kysely's
 * and pg's) cost it about twice the CPU of a bundle (issue #16: under 0.5 s a command). Split at
 * its dynamic imports so `--help` or a usage error loads none of the store, and a command on
 * SQLite never parses the Redis or PostgreSQL clients. Packages are bundled too, except the
 * native better-sqlite3 and pg's optional pg-native; `require` is given to the bundled CommonJS.
 * It sits two levels under the output directory as src/config/load.js does, so the bundled
 * `new URL('../../config/default.json', import.meta.url)` finds the same copied default.json.
 */
async function buildAdmin(outdir) {
  await build({
    absWorkingDir: ROOT,
    entryPoints: { main: join('scripts', 'admin.ts') },
    outdir: join(outdir, 'scripts', 'admin'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3', 'pg-native'],
    banner: { js: "import { createRequire as __hearthRequire } from 'node:module'; const require = __hearthRequire(import.meta.url);" },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/** the web console, bundled for browsers by its own script (TypeScript, so run through tsx) */
export function buildConsole(outdir = join(ROOT, 'dist')) {
  if (!existsSync(join(ROOT, 'scripts', 'build-console.ts'))) return;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build-console.ts'), join(outdir, 'console')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`the console build failed (exit ${r.status})`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { outdir: { type: 'string' }, 'server-only': { type: 'boolean' } } });
  const r = await buildServer(values.outdir ? resolve(values.outdir) : undefined);
  console.log(`built ${r.sources} modules and ${r.assets} assets into ${relative(process.cwd(), r.outdir) || '.'} in ${Math.round(r.ms)} ms`);
  if (!values['server-only']) buildConsole(r.outdir);
}
