// The build: the server's TypeScript (src/, broker/) to JavaScript in dist/, one .js per .ts with
// the same layout (dist/src/main.js is the entry; worker threads load their sibling .js, see
// src/adapters/thread-boot.ts), plus the files the server reads at run time: config/default.json
// (src/config/load.ts finds it two levels above itself) and any non-TypeScript file under the
// source roots; the /docs explorer's browser bundle and its licence notice into dist/explorer
// (copied from the @scalar/api-reference dev dependency, so a production install does not carry
// it: docs/operations.md#install); then the web console into dist/console (scripts/build-console.ts,
// which the server serves at /console). `npm install` runs it (the `prepare` script); `npm run
// build` runs it again.
//
// esbuild, not tsc: it only strips types (tsc --noEmit checks them, in CI and before a commit),
// which takes well under a second where tsc's emit took tens of seconds on this machine, and the
// output starts as fast (`npm run bench -- startup`). Plain JavaScript so that it runs before
// anything is built and without tsx.
//
// `--prepare` (the `prepare` script): on a production install (`npm ci --omit=dev`) esbuild and
// the explorer's package are absent; a tree that already holds its build keeps it and the install
// succeeds (docs/operations.md#install).
//
//   node scripts/build.mjs [--outdir DIR] [--server-only] [--prepare]   (DIR inside the project, so node_modules resolve)
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  for (const dir of [...ROOTS, 'config', 'scripts', 'explorer']) rmSync(join(outdir, dir), { recursive: true, force: true });
  const files = ROOTS.flatMap(filesUnder);
  const sources = ROOTS.flatMap(sourcesUnder);
  const { build } = await import('esbuild');
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
  copyExplorer(join(outdir, 'explorer'));
  return { outdir, sources: sources.length, assets: copied.length, ms: performance.now() - started };
}

/**
 * The admin CLI, bundled (`hearth-admin`, `npm run admin`, `node dist/scripts/admin/main.js`): a one-shot process
 * spends most of its life loading modules, and one file per source (several hundred, with kysely's
 * and pg's) cost it about twice the CPU of a bundle (issue #16: under 0.5 s a command). Split at
 * its dynamic imports so `--help` or a usage error loads none of the store, and a command on
 * SQLite never parses the Redis or PostgreSQL clients. Packages are bundled too, except the
 * native better-sqlite3 and pg's optional pg-native; `require` is given to the bundled CommonJS.
 * It sits two levels under the output directory as src/config/load.js does, so the bundled
 * `new URL('../../config/default.json', import.meta.url)` finds the same copied default.json.
 */
async function buildAdmin(outdir) {
  const { build } = await import('esbuild');
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
    // a shebang first: package.json's `bin` runs it as `hearth-admin` (`npx hearth-admin ...`)
    banner: { js: "#!/usr/bin/env node\nimport { createRequire as __hearthRequire } from 'node:module'; const require = __hearthRequire(import.meta.url);" },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  chmodSync(join(outdir, 'scripts', 'admin', 'main.js'), 0o755);
}

/**
 * The /docs explorer (docs/api.md#explorer): Scalar's standalone browser bundle, copied from the
 * dev dependency so the server needs no Scalar package at run time (src/http/docs-page.ts reads
 * dist/explorer/scalar.js). The package ships no licence file: NOTICE.md carries its licence as
 * its package.json and the bundle's own header state it, and the bundle keeps that header.
 * Two changes to the copy, each of which the build requires to apply exactly once (so a Scalar
 * upgrade cannot silently drop one): the placeholder of the API-key value (a base64 joke) becomes
 * the form the ModeCloud scheme takes, `ModeCloud <key>`; and the bundled zod's probe for eval
 * (`new Function("")`, which the page's Content-Security-Policy forbids, so each load reported a
 * violation) answers no at once, as zod does where it knows eval is off.
 */
const EXPLORER_PATCHES = [
  {
    what: 'the API-key value placeholder',
    // the Value field of the branch for `type:"apiKey"` secrets
    find: /(placeholder:)"QUxMIFlPVVIgQkFTRSBBUkUgQkVMT05HIFRPIFVT"(,type:"password",\s*"onUpdate:modelValue":t=>\(\(t,n\)=>e\.eventBus\.emit\("auth:update:security-scheme-secrets",\{\s*payload:\{type:"apiKey")/g,
    replace: '$1"ModeCloud <key>"$2',
  },
  {
    what: "zod's eval probe",
    find: /(navigator\?\.userAgent\?\.includes\("Cloudflare"\)\)return!1\s*;)try\{return new Function\(""\),!0\}catch\(e\)\{return!1\}/g,
    replace: '$1return!1',
  },
];

export function copyExplorer(dir) {
  const require = createRequire(import.meta.url);
  // its exports name the bundle, not its package.json (which sits three levels above it)
  const bundlePath = require.resolve('@scalar/api-reference/browser/standalone.js');
  const pkg = JSON.parse(readFileSync(join(dirname(bundlePath), '..', '..', 'package.json'), 'utf8'));
  if (pkg.name !== '@scalar/api-reference') throw new Error(`scripts/build.mjs copyExplorer: no package.json of @scalar/api-reference above ${bundlePath}`);
  const bundle = readFileSync(bundlePath, 'utf8');
  const header = bundle.match(/^\/\*\*[\s\S]*?\*\*\//)?.[0];
  if (!header) throw new Error(`@scalar/api-reference ${pkg.version}: its bundle has no licence header`);
  let patched = bundle;
  for (const p of EXPLORER_PATCHES) {
    const found = patched.match(p.find)?.length ?? 0;
    if (found !== 1) throw new Error(`@scalar/api-reference ${pkg.version}: ${p.what} was found ${found} times, not once (scripts/build.mjs copyExplorer)`);
    patched = patched.replace(p.find, p.replace);
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'scalar.js'), patched);
  const notice = [
    `# ${pkg.name} ${pkg.version}`,
    '',
    `dist/explorer/scalar.js is the standalone browser bundle of ${pkg.name} ${pkg.version}, by ${pkg.author},`,
    `licensed under the ${pkg.license} licence (${pkg.homepage}). Hearth changed two places in it: the placeholder of`,
    "the API-key value field reads `ModeCloud <key>`, and zod's probe for eval answers no without trying (the page's",
    'Content-Security-Policy forbids eval). The bundle begins with its own notice:',
    '',
    '```',
    header,
    '```',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'NOTICE.md'), notice);
}

/** whether the build's tools are installed (not on an `npm ci --omit=dev` install) */
function canBuild() {
  try {
    createRequire(import.meta.url).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
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
  const { values } = parseArgs({ options: { outdir: { type: 'string' }, 'server-only': { type: 'boolean' }, prepare: { type: 'boolean' } } });
  if (values.prepare && !values.outdir && !canBuild()) {
    if (!existsSync(join(ROOT, 'dist', 'src', 'main.js')) || !existsSync(join(ROOT, 'dist', 'explorer', 'scalar.js'))) {
      console.error(
        'scripts/build.mjs: the development dependencies (esbuild) are not installed and there is no built dist/: run `npm ci` (without --omit=dev) to build',
      );
      process.exit(1);
    }
    console.log('scripts/build.mjs: a production install (no esbuild): keeping the built dist/');
    process.exit(0);
  }
  const r = await buildServer(values.outdir ? resolve(values.outdir) : undefined);
  console.log(`built ${r.sources} modules and ${r.assets} assets into ${relative(process.cwd(), r.outdir) || '.'} in ${Math.round(r.ms)} ms`);
  if (!values['server-only']) buildConsole(r.outdir);
}
