// Issue 23 defect 1 in cluster mode (docs/devices.md#limits): the KV attack against the broker node of a
// real-process cluster (PostgreSQL + Redis). The store bound holds through the api node, 8
// subscribers that stop reading ask 50 reloads each while a reading device still gets a current
// store, the broker's resident memory stays flat, and the subscribers are closed at the output
// bound and counted on the broker's /metrics. Skipped without HEARTH_TEST_DATABASE_URL and
// HEARTH_TEST_REDIS_URL.
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import { eventually } from '../../helpers/wait.js';
import { connackOf, connectPacket, packetsOf, subscribePacket, varint } from '../broker/raw-mqtt.js';
import { connectDevice, createDevice, createHome, kvTopic, type Device } from './fixtures.js';

const BIG = 'x'.repeat(65_534);

describe.skipIf(!canRunCluster)('KV reload amplification against a broker node of a cluster', { timeout: 240_000 }, () => {
  let c: Cluster;
  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api', roles: ['api', 'worker'] },
        { name: 'broker', roles: ['broker'] },
      ],
      // only the output bound may close a connection here; the attack runs at full speed, with the 8
      // stalled connections of the issue and a reading one of the same device
      env: { HEARTH_BROKER_DRAIN_TIMEOUT_MS: '3600000', HEARTH_RATE_LIMIT_ENABLED: 'false', HEARTH_LIMITS_CONNECTIONS_PER_DEVICE: '16' },
    });
  }, CLUSTER_START_HOOK_MS);
  afterAll(() => c?.close());

  const put = (d: Device, key: string, value: unknown) => c.http('api', 'PUT', `/devices/${d.id}/kv/${key}`, { body: { value } });
  const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  async function metric(name: string, labels: string): Promise<number> {
    const text = await (await fetch(`${c.node('broker').url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }
  function publishPacket(topic: string, payload: string): Buffer {
    const t = Buffer.from(topic);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(t.length);
    const body = Buffer.concat([len, t, Buffer.from(payload)]);
    return Buffer.concat([Buffer.from([0x30]), varint(body.length), body]);
  }
  async function rawSubscriber(d: Device, clientId: string): Promise<Socket> {
    const s = await new Promise<Socket>((resolve, reject) => {
      const sock = netConnect(c.node('broker').mqttPort, '127.0.0.1', () => resolve(sock));
      sock.once('error', reject);
    });
    s.on('error', () => undefined);
    onTestFinished(() => void s.destroy());
    s.write(connectPacket({ clientId, username: String(d.id), password: d.apiKey }));
    expect(await connackOf(s)).toBe(0);
    const packets = packetsOf(s);
    s.write(subscribePacket(1, kvTopic(d.id), 0));
    await packets.next(); // SUBACK
    return s;
  }

  it('the store is bounded, merged reloads keep the broker flat, and subscribers that stop reading are closed', async () => {
    const d = await createDevice(c, 'api', await createHome(c, 'api'));
    // the store fills to its bound (three 64 KiB values); the next write is refused
    let taken = 0;
    for (; taken < 20; taken++) {
      const r = await put(d, `big${taken}`, BIG);
      if (r.status !== 204) {
        expect(r.status).toBe(403);
        expect(r.body).toMatchObject({ reason: 'LIMIT_EXCEEDED' });
        break;
      }
    }
    expect(taken).toBe(3);

    const broker = c.node('broker');
    const subs = await Promise.all(Array.from({ length: 8 }, (_, i) => rawSubscriber(d, `stalled${i}`)));
    const rss0 = rssOf(broker.child.pid!);
    const kvBefore = await metric('hearth_broker_publishes_total', 'kind="kv"');
    for (const s of subs) {
      s.pause();
      for (let i = 0; i < 50; i++) s.write(publishPacket(kvTopic(d.id), '{"action":"reload"}'));
    }
    await eventually(async () => (await metric('hearth_broker_publishes_total', 'kind="kv"')) >= kvBefore + 400, 30_000, 'all 400 reload requests received');
    // a reading device meanwhile asks and gets a current store
    expect((await put(d, 'marker', 1)).status).toBe(204);
    const reader = await connectDevice(broker, d);
    const reloads: any[] = [];
    reader.on('message', (_t, p) => reloads.push(JSON.parse(p.toString())));
    await reader.subscribeAsync(kvTopic(d.id), { qos: 1 });
    await eventually(async () => reloads.some((m) => m.action === 'reload' && m.items.some((i: any) => i.key === 'marker')), 10_000, 'a current reload');
    // coarse: without the bounds the 400 reloads of a full store would be 100 MiB and more
    expect(rssOf(broker.child.pid!) - rss0).toBeLessThan(64 * 1024 * 1024);
    expect((await fetch(`${broker.url}/healthz`)).status).toBe(200);

    // sets (overwrites: the store is full) flood the subscribers that do not read: each is closed
    // at the output bound and counted
    let closed = 0;
    for (let i = 0; i < 600 && closed < 8; i++) {
      expect((await put(d, 'big0', `${i}${BIG.slice(10)}`)).status).toBe(204);
      if (i % 4 === 3) closed = await metric('hearth_broker_slow_consumers_closed_total', 'transport="mqtt_tcp"');
    }
    expect(closed).toBe(8);
    // the reading device stayed
    expect(reader.connected).toBe(true);
  });
});
