// MQTT and WebSocket access control (docs/api.md#credentials, docs/devices.md#mqtt): credentials, CONNACK codes, client-id
// takeover, the topic ACL for subscriptions and publishes, and the WebSocket channels of another
// device. Every refusal keeps the offender's other rights and the victim's connections intact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { brokerLogLines, eventually, inbox, mqttConnect, mqttRefused, subscribeGranted, wsConnect } from './clients.js';
import { generateToken } from '../../helpers/credentials.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

describe('CONNECT credentials', () => {
  it('refuses a wrong key for an existing device with CONNACK 4', async () => {
    expect(await mqttRefused(t, String(t.device.id), generateToken('dk.'))).toBe(4);
  });

  it('refuses a password that is not a key, and a missing password, with CONNACK 4', async () => {
    expect(await mqttRefused(t, String(t.device.id), 'wrong')).toBe(4);
    expect(await mqttRefused(t, String(t.device.id), undefined)).toBe(4);
    expect(await mqttRefused(t, undefined, undefined)).toBe(4);
  });

  it('refuses a user name that is not a device id with CONNACK 4', async () => {
    expect(await mqttRefused(t, 'device-one', t.device.key)).toBe(4);
    expect(await mqttRefused(t, '007', t.device.key)).toBe(4);
  });

  it("refuses another device's key under this device's id with CONNACK 4", async () => {
    const other = await t.seedDevice();
    expect(await mqttRefused(t, String(t.device.id), other.key)).toBe(4);
  });

  it('refuses a deleted device with CONNACK 5', async () => {
    const d = await t.seedDevice();
    await t.deps.store.devices.delete(d.id);
    expect(await mqttRefused(t, String(d.id), d.key)).toBe(5);
  });

  it('keeps no copy of the device key with the connection once signed in (mqtt-packet kept the CONNECT packet)', async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d, { clientId: 'key-kept' });
    expect(c.connected).toBe(true);
    const clients = (t.hearth.broker!.aedes as unknown as { clients: Record<string, { _parser: { settings: Record<string, unknown> } }> }).clients;
    const settings = clients[`${d.id}/key-kept`]?._parser.settings;
    // the parser of this connection keeps what it parses by (MQTT 3.1.1), not the CONNECT packet
    expect(settings?.protocolVersion).toBe(4);
    expect(settings?.password).toBeUndefined();
    expect(settings?.username).toBeUndefined();
  });

  it('writes refused connections of a known device to the general log', async () => {
    const d = await t.seedDevice();
    await mqttRefused(t, String(d.id), generateToken('dk.'));
    await eventually(async () => (await brokerLogLines(t)).some((l) => l.includes(`refused for device "${d.id}"`) && l.includes('INVALID_TOKEN')));
  });
});

describe('client ids', () => {
  it("a device cannot take over another device's client id", async () => {
    const a = await t.seedDevice();
    const b = await t.seedDevice();
    const victim = await mqttConnect(t, a, { clientId: 'shared-id' });
    await victim.subscribeAsync(`/devices/${a.id}/command`, { qos: 1 });
    const box = inbox(victim);
    const intruder = await mqttConnect(t, b, { clientId: 'shared-id' });
    expect(intruder.connected).toBe(true);
    // a command sent after the intruder connected still reaches the victim's connection
    expect((await t.http('PUT', `/devices/${a.id}/command`, { token: t.adminKey, body: { action: 'still-here' } })).status).toBe(204);
    expect(await box.next()).toEqual({ action: 'still-here', parameters: {} });
    expect(victim.connected).toBe(true);
  });

  it('the same device reusing its client id takes over its own session (MQTT-3.1.4-2)', async () => {
    const d = await t.seedDevice();
    const first = await mqttConnect(t, d, { clientId: 'mine' });
    const closed = new Promise<void>((r) => first.once('close', () => r()));
    const second = await mqttConnect(t, d, { clientId: 'mine' });
    await closed;
    expect(second.connected).toBe(true);
  });
});

describe('subscription ACL', () => {
  it('answers SUBACK 0x80 for foreign and wildcard filters and keeps the connection', async () => {
    const other = await t.seedDevice();
    const c = await mqttConnect(t, t.device);
    const own = `/devices/${t.device.id}/command`;
    const filters = [
      `/devices/${other.id}/command`,
      `/devices/${other.id}/kv`,
      '#',
      '/devices/+/command',
      '$SYS/#',
      `/devices/${t.device.id}/event`,
      `/devices/${t.device.id}/#`,
    ];
    const byTopic = await subscribeGranted(c, Object.fromEntries([...filters.map((f) => [f, 1 as const]), [own, 1 as const]]));
    for (const f of filters) expect(byTopic[f], f).toBe(128);
    expect(byTopic[own]).toBe(1);
    expect(c.connected).toBe(true);
  });

  it("a device does not receive another device's commands", async () => {
    const victim = await t.seedDevice();
    const spy = await mqttConnect(t, t.device);
    expect(await subscribeGranted(spy, { [`/devices/${victim.id}/command`]: 1, '#': 1 })).toEqual({ [`/devices/${victim.id}/command`]: 128, '#': 128 });
    const box = inbox(spy);
    const own = `/devices/${t.device.id}/command`;
    expect(await subscribeGranted(spy, { [own]: 1 })).toEqual({ [own]: 1 });
    const v = await mqttConnect(t, victim);
    await v.subscribeAsync(`/devices/${victim.id}/command`, { qos: 1 });
    const vbox = inbox(v);
    expect((await t.http('PUT', `/devices/${victim.id}/command`, { token: t.adminKey, body: { action: 'secret' } })).status).toBe(204);
    await vbox.next();
    // positive control: a command of its own, sent after the secret one, reaches the spy; the
    // secret one would have come first
    expect((await t.http('PUT', `/devices/${t.device.id}/command`, { token: t.adminKey, body: { action: 'control' } })).status).toBe(204);
    expect(await box.next(own)).toEqual({ action: 'control', parameters: {} });
    expect(box.messages).toEqual([]);
  });

  it("a device does not receive another device's KV changes", async () => {
    const victim = await t.seedDevice();
    const spy = await mqttConnect(t, t.device);
    const box = inbox(spy);
    const own = `/devices/${t.device.id}/kv`;
    expect(await subscribeGranted(spy, { [`/devices/${victim.id}/kv`]: 1, [own]: 1 })).toEqual({ [`/devices/${victim.id}/kv`]: 128, [own]: 1 });
    expect(await box.next(own)).toMatchObject({ action: 'reload' });
    expect((await t.http('PUT', `/devices/${victim.id}/kv/secret`, { token: t.adminKey, body: { value: 'x' } })).status).toBe(204);
    // positive control: a change of its own, made after the victim's, reaches the spy; the
    // victim's would have come first
    expect((await t.http('PUT', `${own}/control`, { token: t.adminKey, body: { value: 'y' } })).status).toBe(204);
    expect(await box.next(own)).toMatchObject({ action: 'set', key: 'control', value: 'y' });
    expect(box.messages).toEqual([]);
  });
});

describe('publish ACL', () => {
  it('a device cannot publish events as another device: dropped, logged, connection kept', async () => {
    const victim = await t.seedDevice();
    const c = await mqttConnect(t, t.device);
    await c.publishAsync(`/devices/${victim.id}/event`, JSON.stringify({ eventType: 'forged', eventData: {} }), { qos: 1 });
    expect((await t.deps.store.events.list({ projectId: 1, eventType: 'forged' }, { skip: 0, limit: 1 })).total).toBe(0);
    expect(c.connected).toBe(true);
    await eventually(async () => (await brokerLogLines(t)).some((l) => l.includes(`dropped MQTT publish to /devices/${victim.id}/event`)));
    // still usable
    await c.publishAsync(`/devices/${t.device.id}/event`, JSON.stringify({ eventType: 'afterForgery', eventData: {} }), { qos: 1 });
    expect((await t.deps.store.events.list({ projectId: 1, eventType: 'afterForgery' }, { skip: 0, limit: 1 })).total).toBe(1);
  });

  it('a device cannot inject commands or KV messages into another device', async () => {
    const victim = await t.seedDevice();
    const v = await mqttConnect(t, victim);
    // listening before the SUBSCRIBE: the reload comes in the SUBACK's own write
    const vbox = inbox(v);
    await v.subscribeAsync([`/devices/${victim.id}/command`, `/devices/${victim.id}/kv`], { qos: 1 });
    await vbox.next(`/devices/${victim.id}/kv`); // the reload
    const c = await mqttConnect(t, t.device);
    await c.publishAsync(`/devices/${victim.id}/command`, JSON.stringify({ action: 'unlock', parameters: {} }), { qos: 1 });
    await c.publishAsync(`/devices/${victim.id}/kv`, JSON.stringify({ action: 'set', key: 'owned', value: 1 }), { qos: 1 });
    // positive control: a command sent after the forged publishes reaches the victim; a forged
    // message would have come first
    expect((await t.http('PUT', `/devices/${victim.id}/command`, { token: t.adminKey, body: { action: 'control' } })).status).toBe(204);
    expect(await vbox.next(`/devices/${victim.id}/command`)).toEqual({ action: 'control', parameters: {} });
    expect(vbox.messages).toEqual([]);
    expect(await t.deps.store.kv.get('device', victim.id, 'owned')).toBeUndefined();
    expect(c.connected).toBe(true);
  });

  it("a device's own raw publish is never forwarded to subscribers", async () => {
    const d = await t.seedDevice();
    const c = await mqttConnect(t, d);
    await c.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    const box = inbox(c);
    // command topic is not one a device may publish to
    await c.publishAsync(`/devices/${d.id}/command`, JSON.stringify({ action: 'loop', parameters: {} }), { qos: 1 });
    // positive control: a real command, sent after the raw publish, arrives; the raw one would have come first
    expect((await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'control' } })).status).toBe(204);
    expect(await box.next()).toEqual({ action: 'control', parameters: {} });
    expect(box.messages).toEqual([]);
  });

  it("a handled device publish ends at its PUBACK: Aedes's publish steps and event never see it, its own $SYS publishes still go through", async () => {
    const aedes = t.hearth.broker!.aedes;
    const seen: string[] = [];
    const onPublish = (packet: { topic: string }) => void seen.push(packet.topic);
    aedes.on('publish', onPublish);
    try {
      const d = await t.seedDevice();
      const c = await mqttConnect(t, d, { clientId: 'consumed-a' });
      // positive control: the listener sees what does go through Aedes (a connect is announced on $SYS)
      await eventually(() => seen.some((topic) => topic.endsWith('/new/clients')));
      await c.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'consumedProbe', eventData: { qos: 1 } }), { qos: 1 });
      c.publish(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'consumedProbe', eventData: { qos: 0 } }), { qos: 0 });
      await c.publishAsync(`/devices/${d.id}/data`, JSON.stringify({ data: [{ temperature: 21 }] }), { qos: 1 });
      // a publish refused (not its topic) is consumed too
      await c.publishAsync(`/devices/${d.id}/command`, JSON.stringify({ action: 'x' }), { qos: 1 });
      await eventually(async () => (await t.deps.store.events.list({ projectId: 1, eventType: 'consumedProbe' }, { skip: 0, limit: 5 })).total === 2);
      // Aedes publishes a QoS 1 packet after its PUBACK is written: another connect announced after
      // all of the above means they had their turn
      const announced = seen.length;
      await mqttConnect(t, d, { clientId: 'consumed-b' });
      await eventually(() => seen.slice(announced).some((topic) => topic.endsWith('/new/clients')));
      expect(seen.filter((topic) => !topic.startsWith('$SYS/'))).toEqual([]);
      expect(c.connected).toBe(true);
    } finally {
      aedes.off('publish', onPublish);
    }
  });

  it('a device cannot publish to $SYS or to a retained foreign topic', async () => {
    const c = await mqttConnect(t, t.device);
    await c.publishAsync('$SYS/broker/x', 'hi', { qos: 1, retain: true });
    await c.publishAsync('/anything', 'hi', { qos: 0, retain: true });
    expect(c.connected).toBe(true);
    const other = await mqttConnect(t, t.device);
    expect(await subscribeGranted(other, { '/anything': 0 })).toEqual({ '/anything': 128 });
  });
});

describe('WebSocket channels of another device', () => {
  it("a device cannot open another device's command socket (404), nor a project key (403)", async () => {
    const other = await t.seedDevice();
    await expect(wsConnect(t, `/devices/${other.id}/command`, { token: t.device.key })).rejects.toMatchObject({
      status: 404,
      body: { reason: 'DEVICE_NOT_FOUND' },
    });
    await expect(wsConnect(t, `/devices/${other.id}/command`, { token: t.adminKey })).rejects.toMatchObject({
      status: 403,
      body: { reason: 'PERMISSION_DENIED' },
    });
  });

  it("a device cannot watch another device's KV (403 DEVICE_NOT_FOUND: the operation has no 404)", async () => {
    const other = await t.seedDevice();
    await expect(wsConnect(t, `/devices/${other.id}/kv`, { token: t.device.key })).rejects.toMatchObject({ status: 403, body: { reason: 'DEVICE_NOT_FOUND' } });
  });

  it('a WebSocket without a credential is refused as the operation says (403 for receiveCommands, 401 for KV)', async () => {
    await expect(wsConnect(t, `/devices/${t.device.id}/command`)).rejects.toMatchObject({ status: 403, body: { reason: 'AUTHORIZATION_REQUIRED' } });
    await expect(wsConnect(t, `/devices/${t.device.id}/kv`)).rejects.toMatchObject({ status: 401, body: { reason: 'AUTHORIZATION_REQUIRED' } });
    await expect(wsConnect(t, `/devices/${t.device.id}/command?authToken=dk.nope`)).rejects.toMatchObject({ status: 403, body: { reason: 'INVALID_TOKEN' } });
  });
});
