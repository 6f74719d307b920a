// The command outbox over the command WebSocket, and as MODE's device libraries see it
// (docs/devices.md#command-outbox): the Node device library (a command WebSocket with
// `Authorization: ModeCloud <key>`, every frame JSON-parsed and handed on whole) and the Go SDK
// (CONNECT with an empty client id and a clean session, one SUBSCRIBE of command and kv at QoS 0,
// `{action, parameters}` decoded, other fields ignored). Both get queued commands unchanged, and,
// never answering, never get a command twice once their transport confirmed it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox, mqttConnect, wsConnect } from '../broker/clients.js';
import { commandEvents, enqueue, stateOf } from './helpers.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

describe('outbox over the command WebSocket', () => {
  it('sends queued commands in order with their ids on open; delivered once the frame is written; answers over HTTP', async () => {
    const d = await t.seedDevice();
    const made: any[] = [];
    for (const n of [1, 2, 3]) made.push(await enqueue(t, d, { action: 'step', parameters: { n }, ackRequired: n !== 3 }));
    const peer = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    for (const c of made) expect(await peer.next()).toEqual({ action: 'step', parameters: c.parameters, id: c.id });
    await eventually(async () => (await Promise.all(made.map((c) => stateOf(t, d, c.id)))).every((s) => s === 'delivered'));
    expect((await t.http('POST', `/devices/${d.id}/commands/${made[0].id}/ack`, { token: d.key, body: {} })).body.state).toBe('acked');
    expect((await t.http('POST', `/devices/${d.id}/commands/${made[1].id}/ack`, { token: d.key, body: { status: 'error' } })).body.state).toBe('failed');
    // a command made while the socket is open goes at once
    const live = await enqueue(t, d, { action: 'live' });
    expect(await peer.next()).toEqual({ action: 'live', parameters: {}, id: live.id });
    peer.ws.close();
    await peer.closed;

    // the next socket gets nothing again: all answered or delivered without ackRequired
    const again = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    const control = await enqueue(t, d, { action: 'control' });
    expect((await again.next()).id).toBe(control.id);
    expect(again.frames).toHaveLength(1);
    const states = (await commandEvents(t, d)).filter(([id]) => id === made[2].id).map(([, s]) => s);
    expect(states).toEqual(['queued', 'sent', 'delivered']);
  });

  it('sends a command still waiting for its answer again on the next socket', async () => {
    const d = await t.seedDevice();
    const c = await enqueue(t, d, { action: 'needs-answer', ackRequired: true });
    const first = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    expect((await first.next()).id).toBe(c.id);
    await eventually(async () => (await stateOf(t, d, c.id)) === 'delivered');
    first.ws.close();
    await first.closed;
    const second = await wsConnect(t, `/devices/${d.id}/command`, { token: d.key });
    expect(await second.next()).toEqual({ action: 'needs-answer', parameters: {}, id: c.id });
  });
});

describe("MODE's device libraries", () => {
  it('the Node device library: queued commands arrive over its WebSocket unchanged, and once', async () => {
    const d = await t.seedDevice();
    const a = await enqueue(t, d, { action: 'turn-on', parameters: { level: 80, nested: { ok: true } } });
    const b = await enqueue(t, d, { action: 'turn-off' });
    const lib = await wsConnect(t, `/devices/${d.id}/command`, { headers: { Authorization: `ModeCloud ${d.key}` } });
    const first = await lib.next();
    const second = await lib.next();
    // what the library's command callback reads
    expect([first.action, first.parameters]).toEqual(['turn-on', { level: 80, nested: { ok: true } }]);
    expect([second.action, second.parameters]).toEqual(['turn-off', {}]);
    await eventually(async () => (await stateOf(t, d, a.id)) === 'delivered' && (await stateOf(t, d, b.id)) === 'delivered');
    lib.ws.terminate();
    await lib.closed;
    // it reconnects (never answering): nothing comes twice
    const back = await wsConnect(t, `/devices/${d.id}/command`, { headers: { Authorization: `ModeCloud ${d.key}` } });
    const control = await enqueue(t, d, { action: 'control' });
    expect((await back.next()).action).toBe('control');
    expect(back.frames.map((f) => f.id)).toEqual([control.id]);
  });

  it('the Go SDK: empty client id, clean session, command and kv in one QoS 0 SUBSCRIBE; commands unchanged, once', async () => {
    const d = await t.seedDevice();
    const a = await enqueue(t, d, { action: 'sync-clock', parameters: { at: 1700000000000 } });
    const b = await enqueue(t, d, { action: 'blink', parameters: { times: 3 } });
    const sdk = await mqttConnect(t, d, { clientId: '', clean: true, protocolVersion: 4 });
    const box = inbox(sdk);
    const granted = await sdk.subscribeAsync(
      [
        { topic: `/devices/${d.id}/command`, qos: 0 },
        { topic: `/devices/${d.id}/kv`, qos: 0 },
      ].reduce((m, s) => ({ ...m, [s.topic]: { qos: s.qos as 0 } }), {}),
    );
    expect(granted.map((g) => g.qos)).toEqual([0, 0]);
    const got = [await box.next(`/devices/${d.id}/command`), await box.next(`/devices/${d.id}/command`)];
    // the SDK decodes {action, parameters} and ignores the rest
    expect(got.map((m) => ({ action: m.action, parameters: m.parameters }))).toEqual([
      { action: 'sync-clock', parameters: { at: 1700000000000 } },
      { action: 'blink', parameters: { times: 3 } },
    ]);
    await eventually(async () => (await stateOf(t, d, a.id)) === 'delivered' && (await stateOf(t, d, b.id)) === 'delivered');
    await sdk.endAsync();

    const again = await mqttConnect(t, d, { clientId: '', clean: true, protocolVersion: 4 });
    const box2 = inbox(again);
    await again.subscribeAsync({ [`/devices/${d.id}/command`]: { qos: 0 }, [`/devices/${d.id}/kv`]: { qos: 0 } });
    const control = await enqueue(t, d, { action: 'control' });
    expect((await box2.next(`/devices/${d.id}/command`)).id).toBe(control.id);
    expect(box2.messages.filter(([topic]) => topic.endsWith('/command'))).toEqual([]);
  });
});
