// The built artifact (scripts/build.mjs, what `npm install` makes and `npm start` runs): built
// afresh into a directory of its own, started as `node <out>/src/main.js` on free ports with a
// temp data directory. It becomes healthy, says what it did at `info` (database, migrations by
// name, listeners, shutdown), and its worker thread (the SQLite access-log writer) runs compiled
// code: a GET shows up in /httpAccessLogs. It needs only the runtime dependencies: its imports
// name none of the devDependencies, and it runs, /docs included, in a tree whose node_modules
// holds only what `npm ci --omit=dev` installs (docs/operations.md#install).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { specifiersOf } from '../helpers/import-graph.js';
import { startHearthProcess, removeDataDir, type HearthProcess } from '../helpers/process.js';

const ROOT = resolve(import.meta.dirname, '../..');
let out: string;
const started: HearthProcess[] = [];

beforeAll(() => {
  // inside the project, so the built modules find node_modules as dist/ does
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  out = mkdtempSync(join(ROOT, '.tmp', 'build-test-'));
  execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', out], { cwd: ROOT, stdio: 'pipe' });
}, 120_000);

afterAll(async () => {
  for (const p of started) {
    await p.kill();
    removeDataDir(p);
  }
  if (out) rmSync(out, { recursive: true, force: true });
});

async function startBuilt(env: Record<string, string> = {}, dataDir?: string): Promise<HearthProcess> {
  const p = await startHearthProcess({
    argv: [join(out, 'src/main.js')],
    env: { HEARTH_LOG_LEVEL: 'info', HEARTH_LOG_FORMAT: 'pretty', ...env },
    dataDir,
    timeoutMs: 120_000,
  });
  started.push(p);
  return p;
}

describe('the built server', () => {
  it('holds every module and the assets it reads at run time, and no TypeScript', () => {
    expect(existsSync(join(out, 'src/main.js'))).toBe(true);
    expect(existsSync(join(out, 'src/adapters/sql/access-log-thread.js'))).toBe(true);
    expect(existsSync(join(out, 'src/worker/webhook/sender/sender-thread.js'))).toBe(true);
    expect(existsSync(join(out, 'broker/index.js'))).toBe(true);
    // the web console, bundled for browsers
    expect(existsSync(join(out, 'console/index.html'))).toBe(true);
    expect(existsSync(join(out, 'console/app.js'))).toBe(true);
    expect(existsSync(join(out, 'src/console'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'config/default.json'), 'utf8'))).toEqual(JSON.parse(readFileSync(join(ROOT, 'config/default.json'), 'utf8')));
    expect(execFileSync('find', [out, '-name', '*.ts'], { encoding: 'utf8' })).toBe('');
  });

  it('starts healthy, logs its lifecycle at info, and its access-log thread records a GET', async () => {
    const p = await startBuilt();
    expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
    const log = p.output();
    // human-readable lines (HEARTH_LOG_FORMAT=pretty): time, level, message
    expect(log).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  connected to SQLite at .*hearth\.db$/m);
    expect(log).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  applied \d+ database migrations: 0001_initial, 0002_webhooks, .*  migrations=\[/m);
    expect(log).toMatch(/INFO  HTTP API on http:\/\/127\.0\.0\.1:\d+$/m);
    expect(log).toMatch(/INFO  MQTT on mqtt:\/\/127\.0\.0\.1:\d+$/m);

    const key = readFileSync(join(p.dataDir, 'admin.key'), 'utf8').trim();
    const headers = { authorization: `ModeCloud ${key}` };
    expect((await fetch(`${p.url}/auth`, { headers })).status).toBe(200);
    // the row is committed by the writer thread; it lists once the batch is flushed
    const deadline = Date.now() + 60_000;
    let rows: { method: string; path: string; statusCode: number }[] = [];
    while (Date.now() < deadline) {
      const r = await fetch(`${p.url}/httpAccessLogs?projectId=1`, { headers });
      expect(r.status).toBe(200);
      rows = (await r.json()) as typeof rows;
      if (rows.some((x) => x.path === '/auth')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toContainEqual(expect.objectContaining({ method: 'GET', path: '/auth', statusCode: 200 }));
  }, 180_000);

  it('stops on SIGTERM with a last line, and applies no migration on a restart of a current database', async () => {
    const first = await startBuilt({ HEARTH_LOG_FORMAT: 'json' });
    await first.kill('SIGTERM');
    expect(first.child.exitCode).toBe(0);
    const lines = first
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ level: 30, msg: 'stopped' });
    expect(lines.some((l) => /^applied \d+ database migrations/.test(l.msg))).toBe(true);

    const again = await startBuilt({ HEARTH_LOG_FORMAT: 'json' }, first.dataDir);
    const relines = again
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // positive control first: it said where its database is
    expect(relines.some((l) => /^connected to SQLite at /.test(l.msg))).toBe(true);
    expect(relines.some((l) => /migration/.test(l.msg))).toBe(false);
  }, 180_000);
});

describe('the built server on its runtime dependencies only', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
  /** the package a bare specifier names: `@scope/name` or `name`, without a subpath */
  const packageOf = (spec: string) =>
    spec
      .split('/')
      .slice(0, spec.startsWith('@') ? 2 : 1)
      .join('/');

  it('imports no devDependency: every package its modules name is a dependency', () => {
    const named = new Set<string>();
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) {
          // the console and the explorer are browser code, served as files, never imported
          if (path !== join(out, 'console') && path !== join(out, 'explorer')) walk(path);
        } else if (e.name.endsWith('.js')) {
          for (const spec of specifiersOf(readFileSync(path, 'utf8'))) {
            if (!spec.startsWith('.') && !spec.startsWith('node:') && !builtinModules.includes(packageOf(spec))) named.add(packageOf(spec));
          }
        }
      }
    };
    walk(out);
    // positive control: the server's own packages are found
    expect(named).toContain('hono');
    expect(named).toContain('aedes');
    expect([...named].filter((p) => !(p in pkg.dependencies)).sort()).toEqual([]);
    expect(pkg.devDependencies).toHaveProperty('@scalar/api-reference');
    expect(pkg.dependencies).not.toHaveProperty('@scalar/api-reference');
  });

  it('starts and serves /docs from a tree holding only the runtime packages', async () => {
    // the packages `npm ci --omit=dev` installs, by package-lock.json: the hoisted ones not marked
    // dev (nested ones live inside their parents); each linked to the shared install, and resolved
    // through the link (--preserve-symlinks), so nothing else in that install is reachable
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const runtime = Object.entries(lock.packages)
      .filter(([path, p]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && !p.dev)
      .map(([path]) => path);
    expect(runtime).toContain('node_modules/hono');
    expect(runtime).not.toContain('node_modules/@scalar/api-reference');
    // no install-time telemetry in a user's install, and nothing like the 421 packages of before
    expect(runtime.filter((path) => path.startsWith('node_modules/@scarf/'))).toEqual([]);
    expect(runtime.length).toBeLessThan(200);
    const tree = mkdtempSync(join(tmpdir(), 'hearth-runtime-'));
    try {
      writeFileSync(join(tree, 'package.json'), JSON.stringify({ ...pkg, devDependencies: {} }));
      cpSync(out, join(tree, 'dist'), { recursive: true });
      for (const path of runtime) {
        if (!existsSync(join(ROOT, path))) continue; // an optional package of another platform
        mkdirSync(dirname(join(tree, path)), { recursive: true });
        symlinkSync(join(ROOT, path), join(tree, path));
      }
      const p = await startHearthProcess({
        argv: ['--preserve-symlinks', '--preserve-symlinks-main', join(tree, 'dist/src/main.js')],
        cwd: tree,
        env: { HEARTH_LOG_LEVEL: 'info', HEARTH_LOG_FORMAT: 'pretty' },
        timeoutMs: 120_000,
      });
      started.push(p);
      expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
      const docs = await fetch(`${p.url}/docs`);
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-security-policy')).toContain("default-src 'none'");
      const js = await fetch(`${p.url}/docs/scalar.js`);
      expect(js.status).toBe(200);
      expect(await js.text()).toContain('ModeCloud <key>');
      // its licence notice travels with it
      expect(readFileSync(join(tree, 'dist/explorer/NOTICE.md'), 'utf8')).toMatch(/@scalar\/api-reference [\d.]+[\s\S]*MIT/);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }, 180_000);
});

describe('the built admin CLI', () => {
  const cli = (args: string[], dataDir: string, input?: string) =>
    spawnSync(process.execPath, [join(out, 'scripts/admin/main.js'), ...args], {
      cwd: ROOT,
      // only what the CLI is told: the parent's HEARTH_* (a test database) must not leak in
      env: { PATH: process.env.PATH, HEARTH_DATA_DIR: dataDir },
      input,
      encoding: 'utf8',
    });

  it('is one bundle split at its dynamic imports, and its usage loads nothing of the store', () => {
    expect(existsSync(join(out, 'scripts/admin/main.js'))).toBe(true);
    // no per-file copy of its sources beside it (those are what the bundle replaced)
    expect(existsSync(join(out, 'scripts/admin/cli.js'))).toBe(false);
    const main = readFileSync(join(out, 'scripts/admin/main.js'), 'utf8');
    expect(main).toContain('parseArgs');
    // kysely is in the store's chunk, loaded only by a command that opens the database
    const chunks = readdirSync(join(out, 'scripts/admin')).filter((f) => f.endsWith('.js'));
    const withKysely = chunks.filter((f) => /\bKysely = class\b/.test(readFileSync(join(out, 'scripts/admin', f), 'utf8')));
    expect(withKysely).toHaveLength(1);
    expect(withKysely[0]).not.toBe('main.js');
    expect(main).not.toMatch(/\bKysely = class\b/);
  });

  it('runs commands on a fresh data directory, reads the default configuration, and fails cleanly', () => {
    const dataDir = mkdtempSync(join(ROOT, '.tmp', 'build-cli-'));
    try {
      // the bundled config loader finds config/default.json two levels up (it refuses to start without)
      const created = cli(['projects', 'create', 'built', '--json'], dataDir);
      expect(created.stderr).toBe('');
      expect(created.status).toBe(0);
      expect(JSON.parse(created.stdout)).toMatchObject({ id: 1, name: 'built' });
      // a password from stdin, never from the command line
      const user = cli(['users', 'create', '1', 'ops@example.com', '--json'], dataDir, 'correct horse battery\n');
      expect(user.status).toBe(0);
      expect(JSON.parse(user.stdout)).toMatchObject({ projectId: 1, email: 'ops@example.com' });
      const listed = cli(['projects', 'list', '--json'], dataDir);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 1, name: 'built' })]);
      const bad = cli(['projects', 'create', 'x'.repeat(300), '--json'], dataDir);
      expect(bad.status).toBe(2);
      expect(JSON.parse(bad.stderr)).toMatchObject({ reason: expect.any(String) });
      const unknown = cli(['nope'], dataDir);
      expect(unknown.status).toBe(2);
      expect(unknown.stderr).toMatch(/unknown command "nope"/);
      // the `bin` (hearth-admin): package.json names the bundle, which runs by its own shebang
      const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
      expect(pkg.bin).toEqual({ 'hearth-admin': 'dist/scripts/admin/main.js' });
      expect(readFileSync(join(out, 'scripts/admin/main.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
      const direct = spawnSync(join(out, 'scripts/admin/main.js'), ['projects', 'list', '--json'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, HEARTH_DATA_DIR: dataDir },
        encoding: 'utf8',
      });
      expect(direct.stderr).toBe('');
      expect(JSON.parse(direct.stdout)).toEqual([expect.objectContaining({ id: 1, name: 'built' })]);
      const typo = cli(['projetcs', 'list'], dataDir);
      expect(typo.status).toBe(2);
      expect(typo.stderr).toMatch(/unknown command "projetcs"; did you mean "projects list"\?/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
