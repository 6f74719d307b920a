// The command outbox over MQTT (docs/concepts.md#command-outbox, docs/devices.md#command-outbox):
// commands queued while the device is offline arrive in order with their ids once it subscribes;
// `delivered` after its PUBACK; answers on commandAck; events follow every change.
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox, mqttConnect } from '../broker/clients.js';
import { commandEvents, enqueue, stateOf } from './helpers.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

describe('outbox over MQTT', () => {
  it('delivers three queued commands in order on subscribe; acks and a failure follow; the list is newest first', async () => {
    const d = await t.seedDevice();
    const made: any[] = [];
    for (const n of [1, 2, 3]) made.push(await enqueue(t, d, { action: 'blink', parameters: { n }, ackRequired: true }));
    expect(made.map((c) => c.state)).toEqual(['queued', 'queued', 'queued']);
    const client = await mqttConnect(t, d);
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    const got = [await box.next(), await box.next(), await box.next()];
    expect(got).toEqual(made.map((c) => ({ action: 'blink', parameters: c.parameters, id: c.id })));
    // MQTT.js answers each QoS 1 publish with its PUBACK
    await eventually(async () => (await Promise.all(made.map((c) => stateOf(t, d, c.id)))).every((s) => s === 'delivered'));
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: made[0].id, status: 'ok', result: { done: true } }), { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: made[1].id }), { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: made[2].id, status: 'error', result: { why: 'busy' } }), { qos: 1 });
    const list = await t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey });
    expect(list.status).toBe(200);
    expect(list.headers.get('vnd.tinkermode.range')).toBe('0-2/3');
    expect(list.body.map((c: any) => [c.id, c.state])).toEqual([
      [made[2].id, 'failed'],
      [made[1].id, 'acked'],
      [made[0].id, 'acked'],
    ]);
    expect(list.body[2].result).toEqual({ done: true });
    // by state, and a page of it
    const acked = await t.http('GET', `/devices/${d.id}/commands?state=acked`, { token: t.adminKey });
    expect(acked.body.map((c: any) => c.id)).toEqual([made[1].id, made[0].id]);
    const page = await t.http('GET', `/devices/${d.id}/commands?skip=1&limit=1`, { token: t.adminKey });
    expect(page.headers.get('vnd.tinkermode.range')).toBe('1-1/3');
    expect(page.body.map((c: any) => c.id)).toEqual([made[1].id]);
    expect(list.body[0].result).toEqual({ why: 'busy' });
    for (const c of list.body) expect(c).toMatchObject({ sentTime: expect.any(String), deliveredTime: expect.any(String), ackTime: expect.any(String) });
    const events = await commandEvents(t, d);
    for (const c of made)
      expect(events.filter(([id]) => id === c.id).map(([, s]) => s)).toEqual(['queued', 'sent', 'delivered', expect.stringMatching(/acked|failed/)]);
  });

  it('sends a delivered command without ackRequired only once; one with it again on the next connection until answered', async () => {
    const d = await t.seedDevice();
    const once = await enqueue(t, d, { action: 'once' });
    const until = await enqueue(t, d, { action: 'until-answered', ackRequired: true });
    const first = await mqttConnect(t, d);
    const box1 = inbox(first);
    await first.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    expect((await box1.next()).id).toBe(once.id);
    expect((await box1.next()).id).toBe(until.id);
    await eventually(async () => (await stateOf(t, d, once.id)) === 'delivered' && (await stateOf(t, d, until.id)) === 'delivered');
    await first.endAsync();

    const second = await mqttConnect(t, d);
    const box2 = inbox(second);
    await second.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    expect(await box2.next()).toEqual({ action: 'until-answered', parameters: {}, id: until.id });
    await second.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: until.id }), { qos: 1 });
    await eventually(async () => (await stateOf(t, d, until.id)) === 'acked');
    await second.endAsync();

    const third = await mqttConnect(t, d);
    const box3 = inbox(third);
    await third.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    // positive control: a command made now arrives, and nothing came before it
    const fresh = await enqueue(t, d, { action: 'control' });
    expect((await box3.next()).id).toBe(fresh.id);
    expect(box3.messages).toEqual([]);
  });

  it('sends what is due on a persistent session that comes back with its command subscription restored, without a SUBSCRIBE', async () => {
    const d = await t.seedDevice();
    const clientId = `persist-${d.id}`;
    const first = await mqttConnect(t, d, { clientId, clean: false });
    await first.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    await first.endAsync();
    const c = await enqueue(t, d, { action: 'while-away' });
    // Aedes restores the subscription before its CONNACK and marks the client connected only
    // after reading the session's queue: the outbox must not take that gap for a closed client
    const back = mqtt.connect(`mqtt://127.0.0.1:${t.mqttPort}`, { username: String(d.id), password: d.key, clientId, clean: false, reconnectPeriod: 0 });
    onTestFinished(() => back.endAsync(true).catch(() => undefined));
    const box = inbox(back);
    expect(await box.next()).toEqual({ action: 'while-away', parameters: {}, id: c.id });
    await eventually(async () => (await stateOf(t, d, c.id)) === 'delivered');
  });

  it('sends at once to a connected device, and on a QoS 0 subscription counts the flushed write as delivered', async () => {
    const d = await t.seedDevice();
    const client = await mqttConnect(t, d);
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 0 });
    const c = await enqueue(t, d, { action: 'now', parameters: { a: 1 } });
    expect(await box.next()).toEqual({ action: 'now', parameters: { a: 1 }, id: c.id });
    await eventually(async () => (await stateOf(t, d, c.id)) === 'delivered');
  });

  it('drops and logs an answer to another device’s command, an unknown one and a finished one: nothing changes', async () => {
    const d = await t.seedDevice();
    const other = await t.seedDevice();
    const foreign = await enqueue(t, other, { action: 'theirs', ackRequired: true });
    const mine = await enqueue(t, d, { action: 'mine', ackRequired: true });
    const client = await mqttConnect(t, d);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: foreign.id }), { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: 'no-such-command' }), { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: mine.id, status: 'error' }), { qos: 1 });
    await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: mine.id, status: 'ok' }), { qos: 1 });
    // positive control: the device's own answer took
    await eventually(async () => (await stateOf(t, d, mine.id)) === 'failed');
    expect(await stateOf(t, other, foreign.id)).toBe('queued');
    await eventually(async () => {
      const logs = await t.deps.store.logs.list({ projectId: d.projectId }, { skip: 0, limit: 100 });
      const lines = logs.items.map((l) => l.text).filter((m) => m.includes('commandAck'));
      return lines.some((m) => m.includes('NOT_FOUND')) && lines.some((m) => m.includes('INVALID_STATE'));
    });
    // the connection stayed
    expect(client.connected).toBe(true);
  });
});
