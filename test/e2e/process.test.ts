// The real process (`node --import tsx src/main.ts`), as an operator starts it (docs/operations.md#configuration): a
// temp data directory, free ports, the admin key file, a restart on the same data, and the one
// line it prints when a setting is wrong. Every child is killed in cleanup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children = new Set<ChildProcess>();
const dirs: string[] = [];

/** a port nobody listens on: bind port 0, note it, release it */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

function start(env: Record<string, string>): Proc {
  // the parent's HEARTH_* settings must not leak into the child
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HEARTH_')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...base, HEARTH_HOST: '127.0.0.1', HEARTH_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => (children.delete(child), r(code))));
  return { child, stdout: () => out, stderr: () => err, exited };
}

// a wait for the child to answer; the deadline only bounds a failure. A child compiling its
// TypeScript on a loaded machine took over 45 s (seen beside stress-ng); the hooks allow 90 s
const HEALTHY_WITHIN_MS = 80_000;

async function waitHealthy(p: Proc, port: number): Promise<void> {
  const deadline = Date.now() + HEALTHY_WITHIN_MS;
  let gone = false;
  void p.exited.then(() => (gone = true));
  while (Date.now() < deadline) {
    if (gone) throw new Error(`process exited before it was healthy:\n${p.stderr()}\n${p.stdout()}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not healthy within ${HEALTHY_WITHIN_MS / 1000} s:\n${p.stderr()}`);
}

async function stop(p: Proc): Promise<number | null> {
  p.child.kill('SIGTERM');
  return p.exited;
}

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hearth-e2e-'));
  dirs.push(d);
  return d;
}

describe('the hearth process', () => {
  let dataDir: string;
  let port: number;
  let mqttPort: number;
  let first: Proc;
  let adminKey: string;
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `ModeCloud ${adminKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  beforeAll(async () => {
    dataDir = tempDir();
    port = await freePort();
    mqttPort = await freePort();
    first = start({ HEARTH_DATA_DIR: dataDir, HEARTH_HTTP_PORT: String(port), HEARTH_MQTT_PORT: String(mqttPort) });
    await waitHealthy(first, port);
  }, 90_000);

  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('writes the admin key at first start to <dataDir>/admin.key, one line, mode 0600', () => {
    const file = join(dataDir, 'admin.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^pk\.[A-Za-z0-9_-]{43}\n$/);
    adminKey = text.trim();
  });

  it('identifies the admin key over real HTTP with GET /auth', async (ctx) => {
    const r = await api('GET', '/auth');
    // TODO(registry routes): GET /auth is built in parallel; until it lands it answers 404
    if (r.status === 404 && ((await r.clone().json()) as { reason: string }).reason === 'NOT_FOUND') ctx.skip();
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ type: 'project key', projectId: 1 });
  });

  it('serves operations endpoints and records authenticated requests in the access log', async () => {
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('access-control-allow-origin')).toBe('*');
    expect(ready.headers.get('x-request-id')).toBeTruthy();
    expect((await fetch(`http://127.0.0.1:${port}/openapi.json`)).status).toBe(200);
    expect((await api('GET', '/devices/999999/kv/probe')).status).toBe(404);
    // the recorder writes in batches (every 500 ms by default); the deadline is for a busy machine
    await expect
      .poll(
        async () => {
          const r = await api('GET', '/httpAccessLogs?pathPrefix=/devices/999999');
          return (await r.json()) as { path: string; statusCode: number }[];
        },
        { timeout: 20_000, interval: 200 },
      )
      .toEqual([expect.objectContaining({ path: '/devices/999999/kv/probe', statusCode: 404, method: 'GET' })]);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toContain('hearth_http_requests_total{route="lookUpKeyValuePair"');
  });

  it('round-trips a key-value pair over real HTTP on a home created with POST /homes', async (ctx) => {
    const created = await api('POST', '/homes', { name: 'E2E home', projectId: 1 });
    // TODO(registry routes): POST /homes is built in parallel; until it answers 201 there is no
    // way to create a home from outside the process, so this step waits for it
    if (created.status !== 201) ctx.skip();
    const home = (await created.json()) as { id: number };
    expect((await api('PUT', `/homes/${home.id}/kv/greeting`, { value: 'hello' })).status).toBe(204);
    const got = await api('GET', `/homes/${home.id}/kv/greeting`);
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ key: 'greeting', value: 'hello' });
    expect((await api('DELETE', `/homes/${home.id}/kv/greeting`)).status).toBe(204);
  });

  it('round-trips a device key-value pair with the key of a device created with POST /devices', async (ctx) => {
    const created = await api('POST', '/devices', { projectId: 1, deviceClass: 'default', name: 'E2E device' });
    // TODO(registry routes): POST /devices is built in parallel; skipped until it answers 201
    if (created.status !== 201) ctx.skip();
    const device = (await created.json()) as { id: number; apiKey: string };
    const asDevice = (method: string, path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `ModeCloud ${device.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    expect((await asDevice('PUT', `/devices/${device.id}/kv/firmware`, { value: '1.2.3' })).status).toBe(204);
    const list = await asDevice('GET', `/devices/${device.id}/kv`);
    expect(list.status).toBe(200);
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-0/1');
    expect(await list.json()).toEqual([{ key: 'firmware', value: '1.2.3', modificationTime: expect.any(String) }]);
    expect((await api('GET', `/devices/${device.id}/kv/firmware`)).status).toBe(200);
  });

  it('stops cleanly on SIGTERM and, restarted on the same data dir, keeps the key and creates no new one', { timeout: 120_000 }, async () => {
    expect(await stop(first)).toBe(0);
    const before = readFileSync(join(dataDir, 'admin.key'), 'utf8');
    const mtime = statSync(join(dataDir, 'admin.key')).mtimeMs;
    const second = start({ HEARTH_DATA_DIR: dataDir, HEARTH_HTTP_PORT: String(port), HEARTH_MQTT_PORT: String(mqttPort) });
    try {
      await waitHealthy(second, port);
      expect(readFileSync(join(dataDir, 'admin.key'), 'utf8')).toBe(before);
      expect(statSync(join(dataDir, 'admin.key')).mtimeMs).toBe(mtime);
      expect(second.stdout()).not.toContain('admin key');
      // the same key still works, and what the first run recorded is still there
      const r = await api('GET', '/httpAccessLogs?pathPrefix=/devices/999999');
      expect(r.status).toBe(200);
      expect(((await r.json()) as unknown[]).length).toBeGreaterThan(0);
    } finally {
      await stop(second);
    }
  });

  it('exits 1 with one line naming HEARTH_HTTP_PORT when the port is not a number', { timeout: 90_000 }, async () => {
    const p = start({ HEARTH_DATA_DIR: tempDir(), HEARTH_HTTP_PORT: 'abc', HEARTH_MQTT_PORT: String(mqttPort) });
    expect(await p.exited).toBe(1);
    const lines = p.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('HEARTH_HTTP_PORT');
  });

  it('exits 1 with one line naming HEARTH_HTTP_PORT when the port is already in use', { timeout: 90_000 }, async () => {
    const holder: Server = createServer();
    const busy = await new Promise<number>((r) => holder.listen(0, '127.0.0.1', () => r((holder.address() as { port: number }).port)));
    try {
      const p = start({ HEARTH_DATA_DIR: tempDir(), HEARTH_HTTP_PORT: String(busy), HEARTH_MQTT_PORT: String(await freePort()) });
      expect(await p.exited).toBe(1);
      const lines = p.stderr().trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('HEARTH_HTTP_PORT');
      expect(lines[0]).toContain(String(busy));
    } finally {
      await new Promise((r) => holder.close(r));
    }
  });
});
