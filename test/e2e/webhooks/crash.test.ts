// Nothing accepted is lost (docs/webhooks.md): a real Hearth process is killed with SIGKILL while webhook
// deliveries are in flight and events are still arriving; after a restart on the same data
// directory the receiver gets every accepted event (a 204 was answered) at least once, each under
// one stable X-Service-Delivery id, every request correctly signed.
//
// The child is `node --import tsx src/main.ts` rather than `npx tsx src/main.ts`: the tsx CLI runs
// the program in a grandchild process, which a SIGKILL of the CLI would leave running.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startReceiver, waitFor } from './receiver.js';
import { createSqlStore } from '../../../src/adapters/sql/store.js';

const ROOT = new URL('../../../', import.meta.url).pathname;

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

interface Child {
  proc: ChildProcess;
  output: () => string;
}

function startChild(env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  onTestFinished(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  return { proc, output: () => out };
}

async function untilHealthy(base: string, child: Child): Promise<void> {
  await waitFor(
    async () => {
      if (child.proc.exitCode !== null) throw new Error(`hearth exited: ${child.output()}`);
      try {
        return (await fetch(`${base}/healthz`)).ok;
      } catch {
        return false;
      }
    },
    60_000,
    'hearth to start',
  );
}

describe('crash safety', () => {
  it('delivers every accepted event after a SIGKILL mid-delivery and a restart', { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-crash-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const httpPort = await freePort();
    const env = {
      HEARTH_HOST: '127.0.0.1',
      HEARTH_HTTP_PORT: String(httpPort),
      HEARTH_MQTT_PORT: String(await freePort()),
      HEARTH_DATA_DIR: dataDir,
      HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      HEARTH_RATE_LIMIT_ENABLED: 'false',
      HEARTH_WEBHOOKS_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1',
      HEARTH_WEBHOOKS_POLL_MS: '200',
      HEARTH_LOG_LEVEL: 'warn',
    };
    const base = `http://127.0.0.1:${httpPort}`;

    // a receiver slower than the senders, holding each answer a while: at the kill there are
    // deliveries in flight (received, not answered) and a backlog not yet sent
    const rx = await startReceiver();
    const inFlight = new Set<number>();
    const acked = new Set<number>();
    rx.reply((r, res) => {
      const n: number = r.body.eventData.n;
      inFlight.add(n);
      const t = setTimeout(() => res.end('ok'), 150);
      res.on('finish', () => acked.add(n));
      res.on('close', () => {
        inFlight.delete(n);
        clearTimeout(t);
      });
    });

    let child = startChild(env);
    await untilHealthy(base, child);
    const adminKey = readFileSync(join(dataDir, 'admin.key'), 'utf8').trim();
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `ModeCloud ${adminKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    // a home and a device in it, through the API (or, if those routes are not there, the store)
    let homeId: number;
    const h = await api('POST', '/homes', { name: 'crash home', projectId: 1 });
    if (h.status === 201) homeId = ((await h.json()) as { id: number }).id;
    else {
      const store = await createSqlStore({ url: join(dataDir, 'hearth.db') });
      homeId = (await store.homes.create({ projectId: 1, name: 'crash home', creationTime: new Date().toISOString() })).id;
      await store.close();
    }
    const d = await api('POST', '/devices', { projectId: 1, deviceClass: 'default', homeId });
    expect(d.status, await d.clone().text()).toBe(201);
    const deviceId = ((await d.json()) as { id: number }).id;

    const m = await api('POST', '/projects/1/smartModules', { id: 'crash-hooks', eventWebhook: { url: rx.url } });
    expect(m.status).toBe(201);
    rx.trust(((await m.json()) as { eventWebhook: { key: string } }).eventWebhook.key);

    // events keep arriving until the kill; only those answered 204 were accepted
    const accepted = new Set<number>();
    let next = 0;
    let killed = false;
    const sender = async () => {
      while (!killed && next < 2000) {
        const n = next++;
        try {
          const r = await api('PUT', `/devices/${deviceId}/event`, { eventType: 'crashTest', eventData: { n } });
          if (r.status === 204) accepted.add(n);
          else if (!killed) throw new Error(`event ${n}: ${r.status} ${await r.text()}`);
        } catch (err) {
          if (!killed) throw err;
        }
      }
    };
    const senders = Promise.all([sender(), sender(), sender(), sender()]);
    await waitFor(() => rx.received.length >= 60 && inFlight.size > 0, 40_000, 'deliveries in flight');
    const inFlightAtKill = [...inFlight];
    killed = true;
    child.proc.kill('SIGKILL');
    await senders;
    await new Promise<void>((r) => (child.proc.exitCode !== null || child.proc.signalCode !== null ? r() : child.proc.once('exit', () => r())));
    expect(child.proc.signalCode).toBe('SIGKILL');
    expect(inFlightAtKill.length).toBeGreaterThan(0);
    const unacked = [...accepted].filter((n) => !acked.has(n));
    const receivedBeforeRestart = rx.received.length;
    expect(unacked.length, 'accepted events not yet delivered at the kill').toBeGreaterThan(0);

    child = startChild(env);
    await untilHealthy(base, child);
    await waitFor(
      () => {
        const got = new Set(rx.received.map((r) => r.body.eventData.n));
        return [...accepted].every((n) => got.has(n));
      },
      60_000,
      'every accepted event to be delivered',
    );

    expect(accepted.size).toBeGreaterThan(60);
    // the deliveries cut off by the kill were sent again after the restart
    const afterRestart = new Set(rx.received.slice(receivedBeforeRestart).map((r) => r.body.eventData.n));
    for (const n of inFlightAtKill) if (accepted.has(n)) expect(afterRestart.has(n), `event ${n} in flight at the kill`).toBe(true);
    expect(rx.received.every((r) => r.verified)).toBe(true);
    // one delivery id per event, the same on every repeat
    const idsByN = new Map<number, Set<string>>();
    for (const r of rx.received) {
      const set = idsByN.get(r.body.eventData.n) ?? new Set();
      set.add(String(r.headers['x-service-delivery']));
      idsByN.set(r.body.eventData.n, set);
    }
    for (const [n, ids] of idsByN) expect(ids.size, `event ${n}`).toBe(1);
    expect(existsSync(join(dataDir, 'hearth.db'))).toBe(true);
    child.proc.kill('SIGTERM');
    await new Promise((r) => child.proc.once('exit', r));
  });
});
