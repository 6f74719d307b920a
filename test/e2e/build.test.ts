// The built artifact (scripts/build.mjs, what `npm install` makes and `npm start` runs): built
// afresh into a directory of its own, started as `node <out>/src/main.js` on free ports with a
// temp data directory. It becomes healthy, says what it did at `info` (database, migrations by
// name, listeners, shutdown), and its worker thread (the SQLite access-log writer) runs compiled
// code: a GET shows up in /httpAccessLogs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
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
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
