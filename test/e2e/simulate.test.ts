// The device simulator (`npm run simulate`) as a child process against a real server on loopback:
// its devices connect, a command sent through the API is answered with the device's KV view (so a
// KV value set through the API is seen to reach it), outbox commands are acked (or failed on request), its summary agrees with the events stored,
// a second run reuses the devices, and --firmware devices follow a rollout to its end. Runs end on Ctrl-C (SIGINT) or at --duration.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { resolve } from 'node:path';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { eventually } from '../helpers/wait.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SLOW = { timeout: 300_000 };

interface SimRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function simulate(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/simulate.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<SimRun>((res, rej) => {
    child.on('error', rej);
    child.on('exit', (code) => res({ code, stdout, stderr }));
  });
  return { child, done, output: () => stdout + stderr };
}

/** a loopback port nobody listens on (just released) */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

/** the summary a `--json` run prints last */
const summaryOf = (r: SimRun) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
};

describe('device simulator', () => {
  let th: TestHearth;
  let base: string[];
  /** a total from the range header of a list answer */
  const total = async (path: string) => {
    const r = await th.http('GET', path, { token: th.adminKey });
    expect(r.status).toBe(200);
    return Number(/\/(\d+)$/.exec(r.headers.get('vnd.tinkermode.range') ?? '/0')?.[1] ?? 0);
  };
  const events = (type: string) => total(`/events?projectId=1&eventType=${type}&limit=1`);

  beforeAll(async () => {
    th = await startTestHearth();
    base = ['--url', th.httpUrl, '--key', th.adminKey, '--mqtt', `mqtt://127.0.0.1:${th.mqttPort}`, '--json'];
  }, 120_000);
  afterAll(() => th?.close());

  it('runs 20 devices, answers a command with the KV set through the API, and agrees with the events stored', SLOW, async () => {
    const sim = simulate([...base, '--devices', '20', '--rate', '50', '--ramp', '20', '--kv-rate', '1']);
    try {
      await expect.poll(() => total('/devices?projectId=1&tag=simulator&isConnected=true&limit=1'), { timeout: 120_000, interval: 500 }).toBe(20);
      const list = await th.http('GET', '/devices?projectId=1&tag=simulator&search=sim-3', { token: th.adminKey });
      const dev = list.body.find((d: { name: string }) => d.name === 'sim-3');
      expect(dev).toBeDefined();
      expect((await th.http('PUT', `/devices/${dev.id}/kv/greeting`, { token: th.adminKey, body: { value: 'hello' } })).status).toBe(204);

      // a command; its answer carries the device's KV store as the device holds it
      const answers = () =>
        th.http('GET', `/events?projectId=1&deviceId=${dev.id}&eventType=commandAnswered`, { token: th.adminKey }).then((r) => r.body as { eventData: any }[]);
      let sent = 0;
      let seen: { eventData: any } | undefined;
      while (!seen && sent < 20) {
        sent++;
        expect(
          (await th.http('PUT', `/devices/${dev.id}/command`, { token: th.adminKey, body: { action: 'report', parameters: { attempt: sent } } })).status,
        ).toBe(204);
        await expect.poll(async () => (await answers()).length, { timeout: 60_000, interval: 200 }).toBe(sent);
        seen = (await answers()).find((e) => e.eventData.kv?.greeting === 'hello');
      }
      expect(seen?.eventData).toMatchObject({ action: 'report', parameters: { attempt: expect.any(Number) }, kvRev: expect.any(Number) });

      // outbox commands (docs/devices.md#command-outbox): acked, or failed when the parameters ask
      const queue = (parameters: object) =>
        th
          .http('POST', `/devices/${dev.id}/commands`, { token: th.adminKey, body: { action: 'report', parameters, ackRequired: true } })
          .then((r) => r.body.id as string);
      const ok = await queue({ attempt: 'outbox' });
      const bad = await queue({ fail: true });
      const stateOf = async (id: string) => (await th.http('GET', `/devices/${dev.id}/commands/${id}`, { token: th.adminKey })).body.state;
      await expect.poll(() => stateOf(ok), { timeout: 60_000, interval: 200 }).toBe('acked');
      await expect.poll(() => stateOf(bad), { timeout: 60_000, interval: 200 }).toBe('failed');
      // the traffic flows: events stored from the simulated devices
      await expect.poll(() => events('simTick'), { timeout: 60_000, interval: 500 }).toBeGreaterThan(50);
    } finally {
      sim.child.kill('SIGINT');
    }
    const sum = summaryOf(await sim.done);
    expect(sum).toMatchObject({ devices: 20, connected: 20, errors: 0, commandsReceived: expect.any(Number) });
    expect(sum.commandsAnswered).toBe(sum.commandsReceived);
    expect(sum.kvReceived).toBeGreaterThanOrEqual(21); // a reload each, and the greeting
    // every event it counted was acknowledged after its commit: all of them are stored
    expect(await events('simTick')).toBe(sum.events);
    expect(await events('commandAnswered')).toBe(sum.commandsAnswered);
    expect(sum.events).toBeGreaterThan(50);
  });

  it('reuses its devices on the next run, over MQTT-over-WebSocket, and stops at --duration', SLOW, async () => {
    const before = await total('/devices?projectId=1&limit=1');
    const stored = await events('simTick');
    const sim = simulate([
      ...base.filter((a, i) => a !== '--mqtt' && base[i - 1] !== '--mqtt'),
      '--transport',
      'ws',
      '--devices',
      '5',
      '--rate',
      '20',
      '--duration',
      '3',
    ]);
    const sum = summaryOf(await sim.done);
    expect(sum).toMatchObject({ devices: 5, errors: 0 });
    expect(await total('/devices?projectId=1&limit=1')).toBe(before);
    expect(await events('simTick')).toBe(stored + sum.events);
  });

  it('says clearly when the key is refused or the server cannot be reached', SLOW, async () => {
    const bad = await simulate(['--url', th.httpUrl, '--key', 'pk.not-a-key', '--duration', '1']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/the key was refused by http:\/\/127\.0\.0\.1:\d+ \(401 INVALID_TOKEN\): pass a project API key with --key/);
    const dev = await simulate(['--url', th.httpUrl, '--key', th.device.key, '--duration', '1']).done;
    expect(dev.code).toBe(2);
    expect(dev.stderr).toMatch(/the key given is a device credential .*pass a project API key/);
    const port = await closedPort();
    const away = await simulate(['--url', `http://127.0.0.1:${port}`, '--key', th.adminKey, '--duration', '1']).done;
    expect(away.code).toBe(2);
    expect(away.stderr).toContain(`cannot reach Hearth at http://127.0.0.1:${port}: ECONNREFUSED`);
  });
  it('puts its devices in --home (created there, or moved there when reused) and connects from --source-addresses', SLOW, async () => {
    const home = await th.seedHome();
    // one reused device elsewhere first: a run without --home creates h-1 in no home
    expect(summaryOf(await simulate([...base, '--prefix', 'h-', '--tag', 'homed', '--devices', '1', '--rate', '0', '--duration', '1']).done).devices).toBe(1);
    // a relay on 127.0.0.1 to the broker, noting each connection's source address
    const sources = new Set<string>();
    const relay: Server = createServer((sock) => {
      sources.add(sock.remoteAddress!.replace(/^::ffff:/, ''));
      const up = connect(th.mqttPort, '127.0.0.1');
      sock.pipe(up).pipe(sock);
      sock.on('error', () => up.destroy());
      up.on('error', () => sock.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    try {
      const args = ['--url', th.httpUrl, '--key', th.adminKey, '--json', '--prefix', 'h-', '--tag', 'homed', '--devices', '4', '--rate', '0'];
      const mqtt = `mqtt://127.0.0.1:${(relay.address() as AddressInfo).port}`;
      const sim = simulate([...args, '--home', String(home), '--source-addresses', '3', '--mqtt', mqtt]);
      try {
        await expect.poll(() => total(`/devices?projectId=1&tag=homed&homeId=${home}&isConnected=true&limit=1`), { timeout: 120_000, interval: 500 }).toBe(4);
      } finally {
        sim.child.kill('SIGINT');
      }
      expect(summaryOf(await sim.done)).toMatchObject({ devices: 4, errors: 0 });
      expect([...sources].sort()).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.3']);
      expect(await total('/devices?projectId=1&tag=homed&limit=1')).toBe(4);
      expect(await total(`/devices?projectId=1&tag=homed&homeId=${home}&limit=1`)).toBe(4);
    } finally {
      await new Promise((r) => relay.close(r));
    }
    // an unknown home: the reason, exit 2
    const bad = await simulate([...base, '--prefix', 'h-', '--tag', 'homed', '--devices', '1', '--home', '999999', '--duration', '1']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/moving device h-1 into home 999999 failed: 404/);
  });

  it('follows a rollout with --firmware: downloads (a few resumed with Range), installs and fails its share', SLOW, async () => {
    // a bundle of the devices' class with a file of 256 KiB
    const bundleId = `sim-fw-${Date.now().toString(36)}`;
    expect(
      (
        await th.http('POST', '/bundles', {
          token: th.adminKey,
          body: { id: bundleId, projectId: 1, deviceClass: 'default', components: [{ componentName: 'main', componentVersionName: '3.1.0' }] },
        })
      ).status,
    ).toBe(201);
    const file = randomBytes(256 * 1024);
    const put = await fetch(`${th.httpUrl}/bundles/${bundleId}/components/main/file`, {
      method: 'PUT',
      headers: { authorization: `ModeCloud ${th.adminKey}`, 'content-type': 'application/octet-stream' },
      body: file,
    });
    expect(put.status, await put.clone().text()).toBe(201);

    const args = ['--prefix', 'fw-', '--tag', 'firmware', '--devices', '10', '--rate', '0', '--kv-rate', '0', '--firmware', '--firmware-fail', '30'];
    const sim = simulate([...base, ...args]);
    let rollout: { id: string; state: string; counts: Record<string, number> };
    try {
      await expect.poll(() => total('/devices?projectId=1&tag=firmware&isConnected=true&limit=1'), { timeout: 120_000, interval: 500 }).toBe(10);
      // a threshold of 100 %: however the failures fall in time, the rollout never pauses itself
      const created = await th.http('POST', '/projects/1/rollouts', {
        token: th.adminKey,
        body: { bundleId, target: { tag: 'firmware' }, failureThreshold: 100 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const read = async () => (rollout = (await th.http('GET', `/projects/1/rollouts/${created.body.id}`, { token: th.adminKey })).body);
      await expect.poll(async () => (await read()).state, { timeout: 120_000, interval: 500 }).toBe('completed');
    } finally {
      sim.child.kill('SIGINT');
    }
    const sum = summaryOf(await sim.done);
    // 30 % of 10, spread evenly: exactly 3 fail; every device downloaded its file, every third download was resumed
    expect(sum).toMatchObject({
      devices: 10,
      errors: 0,
      firmwareUpdates: 10,
      firmwareDownloads: 10,
      firmwareResumes: 4,
      firmwareInstalled: 7,
      firmwareFailed: 3,
    });
    expect(rollout!.counts).toMatchObject({ targeted: 10, pending: 0, notified: 0, downloading: 0, installed: 7, failed: 3 });
    const devices = (await th.http('GET', '/devices?projectId=1&tag=firmware', { token: th.adminKey })).body as { bundleInstalled?: string }[];
    expect(devices.filter((d) => d.bundleInstalled === bundleId)).toHaveLength(7);
    const failed = (await th.http('GET', `/projects/1/rollouts/${rollout!.id}/devices?state=failed`, { token: th.adminKey })).body as { error?: string }[];
    expect(failed).toHaveLength(3);
  });

  it('prints its summary on Ctrl-C during setup', SLOW, async () => {
    const sim = simulate(['--url', th.httpUrl, '--key', th.adminKey, '--prefix', 'setup-', '--tag', 'setup', '--devices', '5000', '--rate', '0']);
    // Ctrl-C once it has created some devices (it prints a line every 50)
    await eventually(() => (/devices: 50 created/.test(sim.output()) ? true : undefined), 120_000, 'devices being created');
    sim.child.kill('SIGINT');
    const r = await sim.done;
    expect(r.code).toBe(130);
    expect(r.stdout).toMatch(/interrupted during setup: \d+ of 5000 devices ready/);
    expect(r.stdout).toMatch(/simulated \d+ devices for [\d.]+ s \(0 connected at the end\)/);
  });

  it('prints its summary on Ctrl-C when the server is gone', SLOW, async () => {
    const gone = await startTestHearth();
    let closed = false;
    try {
      const sim = simulate([
        '--url',
        gone.httpUrl,
        '--key',
        gone.adminKey,
        '--mqtt',
        `mqtt://127.0.0.1:${gone.mqttPort}`,
        '--json',
        '--devices',
        '3',
        '--rate',
        '30',
      ]);
      await expect
        .poll(() => gone.http('GET', '/devices?projectId=1&tag=simulator&isConnected=true&limit=1', { token: gone.adminKey }).then((r) => r.body.length), {
          timeout: 120_000,
          interval: 500,
        })
        .toBe(1);
      await gone.close();
      closed = true;
      sim.child.kill('SIGINT');
      const sum = summaryOf(await sim.done);
      expect(sum).toMatchObject({ devices: 3 });
      expect(sum.connected).toBeLessThanOrEqual(3);
    } finally {
      if (!closed) await gone.close();
    }
  });
});
