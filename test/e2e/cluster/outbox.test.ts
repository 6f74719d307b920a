// The command outbox in cluster mode (docs/concepts.md#command-outbox): the outbox lives in
// PostgreSQL, brokers learn of new commands over Redis, and each command goes out once per
// connection. A device that moves to the other broker gets what the first never sent; a broker
// SIGKILLed while its device has not confirmed a command loses nothing: the command goes out
// again, once, on the device's next connection.
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import { inbox } from '../broker/clients.js';
import { commandTopic, connectDevice, createDevice, createHome, isConnected, type Device } from './fixtures.js';

async function enqueue(c: Cluster, d: Device, body: Record<string, unknown>): Promise<any> {
  const r = await c.http('api', 'POST', `/devices/${d.id}/commands`, { body });
  if (r.status !== 201) throw new Error(`command not queued: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

async function states(c: Cluster, d: Device): Promise<Record<string, string>> {
  const r = await c.http('api', 'GET', `/devices/${d.id}/commands`);
  return Object.fromEntries(r.body.map((x: any) => [x.id, x.state]));
}

describe.skipIf(!canRunCluster)('command outbox across brokers', () => {
  let c: Cluster;
  let homeId: number;

  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api', roles: ['api'] },
        { name: 'A', roles: ['broker'] },
        { name: 'B', roles: ['broker'] },
        { name: 'w', roles: ['worker'] },
      ],
      env: { HEARTH_PRESENCE_HEARTBEAT_MS: '500', HEARTH_PRESENCE_NODE_TIMEOUT_MS: '1500', HEARTH_RATE_LIMIT_ENABLED: 'false' },
    });
    homeId = await createHome(c, 'api');
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await c?.close();
  }, 60_000);

  it('sends at once through the broker holding the device; after a move, the other broker sends only what is left', { timeout: 60_000 }, async () => {
    const d = await createDevice(c, 'api', homeId);
    const onA = await connectDevice(c.node('A'), d);
    const boxA = inbox(onA);
    await onA.subscribeAsync({ [commandTopic(d.id)]: { qos: 1 } });
    await expect.poll(() => isConnected(c, 'api', d.id), { timeout: 10_000 }).toBe(true);
    // created on the api node, sent by broker A
    const first = await enqueue(c, d, { action: 'first' });
    expect(await boxA.next(commandTopic(d.id), 10_000)).toEqual({ action: 'first', parameters: {}, id: first.id });
    await expect.poll(async () => (await states(c, d))[first.id], { timeout: 10_000 }).toBe('delivered');
    await onA.endAsync();
    await expect.poll(() => isConnected(c, 'api', d.id), { timeout: 10_000 }).toBe(false);

    const later = [await enqueue(c, d, { action: 'second' }), await enqueue(c, d, { action: 'third' })];
    const onB = await connectDevice(c.node('B'), d);
    const boxB = inbox(onB);
    await onB.subscribeAsync({ [commandTopic(d.id)]: { qos: 1 } });
    expect(await boxB.next(commandTopic(d.id), 10_000)).toMatchObject({ action: 'second', id: later[0].id });
    expect(await boxB.next(commandTopic(d.id), 10_000)).toMatchObject({ action: 'third', id: later[1].id });
    await expect.poll(async () => Object.values(await states(c, d)), { timeout: 10_000 }).toEqual(['delivered', 'delivered', 'delivered']);
    // positive control, then nothing else came: `first` was not sent again
    const control = await enqueue(c, d, { action: 'control' });
    expect((await boxB.next(commandTopic(d.id), 10_000)).id).toBe(control.id);
    expect(boxB.messages).toEqual([]);
  });

  it('a persistent session that moves to the other broker gets its waiting commands there without a SUBSCRIBE', { timeout: 60_000 }, async () => {
    const d = await createDevice(c, 'api', homeId);
    const clientId = `persist-${d.id}`;
    const onA = await connectDevice(c.node('A'), d, { clientId, clean: false });
    await onA.subscribeAsync({ [commandTopic(d.id)]: { qos: 1 } });
    await onA.endAsync();
    await expect.poll(() => isConnected(c, 'api', d.id), { timeout: 10_000 }).toBe(false);
    const made = await enqueue(c, d, { action: 'while-away' });
    // B restores the subscription from the shared session before its CONNACK; Aedes marks the
    // client connected only after the session's queue is read back from Redis
    const onB = mqtt.connect(`mqtt://127.0.0.1:${c.node('B').mqttPort}`, {
      username: String(d.id),
      password: d.apiKey,
      clientId,
      clean: false,
      reconnectPeriod: 0,
    });
    onTestFinished(() => onB.endAsync(true).catch(() => undefined));
    const boxB = inbox(onB);
    expect(await boxB.next(commandTopic(d.id), 10_000)).toEqual({ action: 'while-away', parameters: {}, id: made.id });
    await expect.poll(async () => (await states(c, d))[made.id], { timeout: 10_000 }).toBe('delivered');
  });

  it('a broker SIGKILLed before its device confirmed anything loses nothing; the next connection gets each command once', { timeout: 90_000 }, async () => {
    const d = await createDevice(c, 'api', homeId);
    const made: any[] = [];
    for (let i = 0; i < 10; i++) made.push(await enqueue(c, d, { action: 'step', parameters: { i }, ackRequired: true }));
    const onB = await connectDevice(c.node('B'), d);
    // the device holds its PUBACK (and with it the rest of its input): B's writes stay unconfirmed
    onB.handleMessage = () => undefined;
    const boxB = inbox(onB);
    await onB.subscribeAsync({ [commandTopic(d.id)]: { qos: 1 } });
    expect((await boxB.next(commandTopic(d.id), 10_000)).id).toBe(made[0].id);
    await expect.poll(async () => Object.values(await states(c, d)).every((s) => s === 'sent'), { timeout: 10_000 }).toBe(true);

    await c.node('B').kill('SIGKILL');
    onB.end(true);
    await expect.poll(() => isConnected(c, 'api', d.id), { timeout: 20_000, interval: 200 }).toBe(false);

    const onA = await connectDevice(c.node('A'), d);
    const boxA = inbox(onA);
    await onA.subscribeAsync({ [commandTopic(d.id)]: { qos: 1 } });
    const got: any[] = [];
    for (let i = 0; i < made.length; i++) got.push(await boxA.next(commandTopic(d.id), 10_000));
    expect(got.map((m) => m.id)).toEqual(made.map((m) => m.id));
    await expect.poll(async () => Object.values(await states(c, d)).every((s) => s === 'delivered'), { timeout: 10_000 }).toBe(true);
    for (const m of made) await onA.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: m.id }), { qos: 1 });
    await expect.poll(async () => Object.values(await states(c, d)).every((s) => s === 'acked'), { timeout: 10_000 }).toBe(true);
    // positive control, then nothing twice on this connection
    const control = await enqueue(c, d, { action: 'control' });
    expect((await boxA.next(commandTopic(d.id), 10_000)).id).toBe(control.id);
    expect(boxA.messages).toEqual([]);
  });
});
