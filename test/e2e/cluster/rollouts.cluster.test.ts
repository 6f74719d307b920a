// Firmware rollouts in cluster mode (docs/firmware.md#rollouts): the worker advancing a rollout is
// SIGKILLed after its first wave and started again; the broker holding half the devices is
// SIGKILLed while they have their command but have not acted, and they reconnect to the other
// broker, which sends the same command again. The rollout still completes, and nothing is counted
// twice: at every look the per-state counts add up to the devices targeted, no device's state ever
// goes back, each device got one `firmware-update` command (however many times it was sent), and
// the final counts are exactly the devices' behaviours.
import type { MqttClient } from 'mqtt';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import type { HearthProcess } from '../../helpers/process.js';
import { eventually } from '../broker/clients.js';
import { waveOf } from '../../../src/domain/rollout/index.js';
import { commandTopic, connectDevice, createDevice, createHome, isConnected, type Device } from './fixtures.js';

const N = 16;
const ORDER: Record<string, number> = { pending: 0, notified: 1, downloading: 2, installed: 3, failed: 3 };
type Behaviour = 'install' | 'download-install' | 'fail';
const behaviourOf = (i: number): Behaviour => (i % 4 === 3 ? 'fail' : i % 4 === 1 ? 'download-install' : 'install');

describe.skipIf(!canRunCluster)('firmware rollouts across nodes killed with SIGKILL', () => {
  let c: Cluster;

  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api', roles: ['api'] },
        { name: 'A', roles: ['broker'] },
        { name: 'B', roles: ['broker'] },
        { name: 'w', roles: ['worker'] },
      ],
      env: {
        HEARTH_PRESENCE_HEARTBEAT_MS: '500',
        HEARTH_PRESENCE_NODE_TIMEOUT_MS: '1500',
        HEARTH_RATE_LIMIT_ENABLED: 'false',
        HEARTH_ROLLOUTS_TICK_MS: '200',
        // the killed worker's lease runs out soon, so its successor takes the rollout over
        HEARTH_ROLLOUTS_LEASE_SECONDS: '3',
      },
    });
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await c?.close();
  }, 60_000);

  it('completes through a worker and a broker killed, counting each device once', { timeout: 180_000 }, async () => {
    const api = c.node('api');
    const bundleId = `fw-cluster-${process.pid}`;
    const made = await c.http('api', 'POST', '/bundles', {
      body: { id: bundleId, projectId: 1, deviceClass: 'default', components: [{ componentName: 'main', componentVersionName: '2.0.0' }] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const bytes = randomBytes(64 * 1024);
    const up = await fetch(`${api.url}/bundles/${bundleId}/components/main/file`, {
      method: 'PUT',
      headers: { authorization: `ModeCloud ${c.adminKey}`, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(up.status, await up.clone().text()).toBe(201);

    const homeId = await createHome(c, 'api');
    const devices: Device[] = [];
    for (let i = 0; i < N; i++) devices.push(await createDevice(c, 'api', homeId));
    // every firmware-update command id each device was sent, over all its connections
    const received = new Map<number, string[]>(devices.map((d) => [d.id, []]));
    // devices of broker B keep their command without acting until B is gone
    let holdB = true;

    const follow = async (broker: HearthProcess, i: number, hold: () => boolean): Promise<MqttClient> => {
      const d = devices[i]!;
      const client = await connectDevice(broker, d, { connectTimeout: 30_000 });
      client.on('message', (_topic, payload) => {
        const cmd = JSON.parse(payload.toString());
        if (cmd.action !== 'firmware-update') return;
        received.get(d.id)!.push(cmd.id);
        if (hold()) return;
        void act(client, d, i, cmd).catch((e) => console.error(`device ${d.id}:`, e));
      });
      await client.subscribeAsync({ [commandTopic(d.id)]: { qos: 1 } });
      return client;
    };
    const act = async (client: MqttClient, d: Device, i: number, cmd: any) => {
      const behaviour = behaviourOf(i);
      if (behaviour === 'fail') {
        await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: cmd.id, status: 'error', result: { error: 'flash write failed' } }), {
          qos: 1,
        });
        return;
      }
      if (behaviour === 'download-install') {
        const got = await fetch(`${api.url}${new URL(cmd.parameters.components[0].url).pathname}`, { headers: { authorization: `ModeCloud ${d.apiKey}` } });
        const body = Buffer.from(await got.arrayBuffer());
        if (got.status !== 200 || !body.equals(bytes)) throw new Error(`download: ${got.status}, ${body.length} bytes`);
      }
      const r = await c.http('api', 'PUT', `/devices/${d.id}/bundle`, { token: d.apiKey, body: { bundleId: cmd.parameters.bundleId } });
      if (r.status !== 204) throw new Error(`bundle not recorded: ${r.status} ${JSON.stringify(r.body)}`);
      await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: cmd.id, status: 'ok' }), { qos: 1 });
    };

    const onB = new Map<number, MqttClient>();
    for (let i = 0; i < N; i++) {
      if (i % 2 === 0) await follow(c.node('A'), i, () => false);
      else onB.set(i, await follow(c.node('B'), i, () => holdB));
    }
    for (const d of devices) await expect.poll(() => isConnected(c, 'api', d.id), { timeout: 20_000 }).toBe(true);

    const waves = [{ percent: 50 }, { percent: 100, afterMinutes: 0.1 }];
    const created = await c.http('api', 'POST', '/projects/1/rollouts', {
      body: { bundleId, target: { deviceIds: devices.map((d) => d.id) }, waves, failureThreshold: 100 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id: string = created.body.id;
    const wave = new Map(devices.map((d) => [d.id, waveOf(waves, id, d.id)]));
    const first = devices.map((d, i) => ({ d, i })).filter(({ d }) => wave.get(d.id) === 0);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(N);

    // watches the rollout while it runs: counts always add up, no device's state goes back
    const seen = new Map<number, string[]>();
    const problems: string[] = [];
    let watching = true;
    const look = async () => {
      const [r, listed] = await Promise.all([
        c.http('api', 'GET', `/projects/1/rollouts/${id}`),
        c.http('api', 'GET', `/projects/1/rollouts/${id}/devices?limit=1000`),
      ]);
      const { targeted, ...states } = r.body.counts;
      const sum = Object.values(states as Record<string, number>).reduce((a, b) => a + b, 0);
      if (targeted !== N || sum !== N) problems.push(`counts ${JSON.stringify(r.body.counts)}`);
      if (listed.body.length !== N) problems.push(`${listed.body.length} device rows`);
      for (const row of listed.body) {
        const history = seen.get(row.deviceId) ?? [];
        const last = history.at(-1);
        if (last !== row.state) {
          if (last !== undefined && (ORDER[row.state]! < ORDER[last]! || ORDER[last] === 3)) problems.push(`device ${row.deviceId}: ${last} → ${row.state}`);
          history.push(row.state);
          seen.set(row.deviceId, history);
        }
      }
      return r.body;
    };
    const watcher = (async () => {
      while (watching) {
        await look();
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const states = async () => {
      const listed = await c.http('api', 'GET', `/projects/1/rollouts/${id}/devices?limit=1000`);
      return new Map<number, string>(listed.body.map((x: any) => [x.deviceId, x.state]));
    };

    try {
      // wave 0: A's devices act, B's hold their command (notified)
      await eventually(
        async () => {
          const now = await states();
          return first.every(({ d, i }) => (i % 2 === 0 ? ORDER[now.get(d.id)!] === 3 : now.get(d.id) === 'notified'));
        },
        60_000,
        'wave 0 notified, its devices on A finished',
      );
      await c.node('w').kill('SIGKILL');

      // B dies while its devices of wave 0 have their command but have not acted
      await c.node('B').kill('SIGKILL');
      for (const client of onB.values()) client.end(true);
      for (const i of onB.keys()) await expect.poll(() => isConnected(c, 'api', devices[i]!.id), { timeout: 20_000, interval: 200 }).toBe(false);
      holdB = false;
      // they come back on A, which sends them their command again
      for (const i of onB.keys()) await follow(c.node('A'), i, () => false);
      await eventually(
        async () => {
          const now = await states();
          return first.every(({ d }) => ORDER[now.get(d.id)!] === 3);
        },
        60_000,
        'wave 0 finished without a worker',
      );

      // a new worker takes the rollout over once the killed one's lease ran out: wave 1, completion
      await c.start({ name: 'w', roles: ['worker'] });
      const done = await eventually(
        async () => {
          const r = await c.http('api', 'GET', `/projects/1/rollouts/${id}`);
          return r.body.state === 'completed' && r.body;
        },
        90_000,
        'the rollout completed',
      );
      const failures = devices.filter((_, i) => behaviourOf(i) === 'fail').length;
      expect(done.counts).toEqual({ targeted: N, pending: 0, notified: 0, downloading: 0, installed: N - failures, failed: failures });
      expect(done.currentWave).toBe(1);
    } finally {
      watching = false;
      await watcher;
    }
    await look();
    expect(problems).toEqual([]);

    const final = await states();
    for (const [i, d] of devices.entries()) {
      expect(final.get(d.id), `device ${d.id}`).toBe(behaviourOf(i) === 'fail' ? 'failed' : 'installed');
      // one command per device and rollout, however often it went out
      const cmds = await c.http('api', 'GET', `/devices/${d.id}/commands`);
      const mine = cmds.body.filter((x: any) => x.action === 'firmware-update' && x.parameters.rolloutId === id);
      expect(mine, `device ${d.id}`).toHaveLength(1);
      expect(new Set(received.get(d.id)), `device ${d.id}`).toEqual(new Set([mine[0].id]));
      if (wave.get(d.id) === 0 && i % 2 === 1) expect(received.get(d.id)!.length, `device ${d.id} got its command on A again`).toBeGreaterThanOrEqual(2);
    }
    const announced = await eventually(
      async () => {
        const r = await c.http('api', 'GET', '/events?projectId=1&eventType=_rolloutUpdated_&limit=1000');
        const last = r.body.find((e: any) => e.eventData.id === id);
        return last?.eventData.state === 'completed' && last;
      },
      30_000,
      'the completed rollout announced',
    );
    expect(announced.eventData.counts).toEqual((await look()).counts);
  });
});
