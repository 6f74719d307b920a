// The command outbox's HTTP API (docs/api.md#command-outbox, docs/concepts.md#command-outbox):
// idempotency, the bound, expiry by the worker's sweep, cancellation, the device's answer over
// HTTP, validation and who may do what. Real server, real requests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox, mqttConnect, wsConnect } from '../broker/clients.js';
import { commandEvents, enqueue, stateOf } from './helpers.js';
import { sweepOutbox } from '../../../src/domain/command/index.js';

let t: TestHearth;
beforeAll(async () => {
  // the sweep every 100 ms, so a 1 s ttl expires within the test
  t = await startTestHearth({ outbox: { sweepIntervalMs: 100, retentionDays: 7 } });
});
afterAll(() => t?.close());

describe('creating', () => {
  it('answers a Command with its defaults; PUT .../command still refuses an offline device', async () => {
    const d = await t.seedDevice();
    const before = Date.now();
    const c = await enqueue(t, d, { action: 'reboot' });
    expect(c).toMatchObject({ id: expect.any(String), deviceId: d.id, action: 'reboot', parameters: {}, ackRequired: false, state: 'queued' });
    const ttl = Date.parse(c.expirationTime) - Date.parse(c.creationTime);
    expect(ttl).toBe(86_400_000);
    expect(Date.parse(c.creationTime)).toBeGreaterThanOrEqual(before - 1000);
    expect(c).not.toHaveProperty('key');
    const direct = await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'reboot' } });
    expect(direct.status).toBe(403);
    expect(direct.body.reason).toBe('DEVICE_OFFLINE');
  });

  it('the same idempotency key twice queues one command and answers it with 200', async () => {
    const d = await t.seedDevice();
    const first = await enqueue(t, d, { action: 'set-level', parameters: { level: 1 }, key: 'level:1' });
    const again = await t.http('POST', `/devices/${d.id}/commands`, {
      token: t.adminKey,
      body: { action: 'set-level', parameters: { level: 2 }, key: 'level:1' },
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first);
    const list = await t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey });
    expect(list.body).toHaveLength(1);
  });

  it('a key is the same command only on the same device and until that command expired', async () => {
    const d = await t.seedDevice();
    const other = await t.seedDevice();
    const first = await enqueue(t, d, { action: 'short', ttl: 1, key: 'k-1' });
    // the same key on another device is that device's own command
    const theirs = await enqueue(t, other, { action: 'short', key: 'k-1' });
    expect(theirs.id).not.toBe(first.id);
    await eventually(async () => (await stateOf(t, d, first.id)) === 'expired', 10_000);
    const again = await t.http('POST', `/devices/${d.id}/commands`, { token: t.adminKey, body: { action: 'short', key: 'k-1' } });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(first.id);
    expect(again.body).toMatchObject({ state: 'queued', key: 'k-1' });
  });

  it('refuses the 101st unfinished command with 403 LIMIT_EXCEEDED; a cancel makes room', async () => {
    const d = await t.seedDevice();
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push((await enqueue(t, d, { action: 'fill', parameters: { i } })).id);
    const over = await t.http('POST', `/devices/${d.id}/commands`, { token: t.adminKey, body: { action: 'fill' } });
    expect(over.status).toBe(403);
    expect(over.body).toEqual({ reason: 'LIMIT_EXCEEDED', data: { deviceId: d.id, outboxPerDevice: 100 } });
    expect((await t.http('DELETE', `/devices/${d.id}/commands/${ids[0]}`, { token: t.adminKey })).status).toBe(204);
    await enqueue(t, d, { action: 'fill' });
  });

  it('refuses invalid bodies with 403 INVALID_PARAMETERS naming the field', async () => {
    const d = await t.seedDevice();
    const cases: [unknown, string][] = [
      [{ action: 'Bad Action' }, 'action'],
      [{}, 'action'],
      [{ action: 'ok-action', parameters: [1] }, 'parameters'],
      [{ action: 'ok-action', ttl: 0 }, 'ttl'],
      [{ action: 'ok-action', ttl: 2_592_001 }, 'ttl'],
      [{ action: 'ok-action', ttl: 1.5 }, 'ttl'],
      [{ action: 'ok-action', key: '' }, 'key'],
      [{ action: 'ok-action', key: 'x'.repeat(65) }, 'key'],
      [{ action: 'ok-action', key: 'bad key' }, 'key'],
      [{ action: 'ok-action', ackRequired: 'yes' }, 'ackRequired'],
      [[{ action: 'ok-action' }], ''],
    ];
    for (const [body, path] of cases) {
      const r = await t.http('POST', `/devices/${d.id}/commands`, { token: t.adminKey, body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
      expect(r.body.data.issues.map((i: any) => i.path)).toContain(path);
    }
    expect((await t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey })).body).toEqual([]);
    const badState = await t.http('GET', `/devices/${d.id}/commands?state=lost`, { token: t.adminKey });
    expect(badState.status).toBe(403);
  });
});

describe('expiry and cancellation', () => {
  it('expires a command on time while the device stays offline, and never sends it', async () => {
    const d = await t.seedDevice();
    const c = await enqueue(t, d, { action: 'short-lived', ttl: 1 });
    await eventually(async () => (await stateOf(t, d, c.id)) === 'expired', 10_000);
    expect((await commandEvents(t, d)).map(([, s]) => s)).toEqual(['queued', 'expired']);
    const client = await mqttConnect(t, d);
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    const control = await enqueue(t, d, { action: 'control' });
    expect((await box.next()).id).toBe(control.id);
    expect(box.messages).toEqual([]);
  });

  it('cancels an unfinished command (204, never sent); a finished one is 403 INVALID_STATE', async () => {
    const d = await t.seedDevice();
    const c = await enqueue(t, d, { action: 'cancel-me' });
    expect((await t.http('DELETE', `/devices/${d.id}/commands/${c.id}`, { token: t.adminKey })).status).toBe(204);
    expect(await stateOf(t, d, c.id)).toBe('cancelled');
    const again = await t.http('DELETE', `/devices/${d.id}/commands/${c.id}`, { token: t.adminKey });
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ reason: 'INVALID_STATE', data: { commandId: c.id, state: 'cancelled' } });
    expect((await t.http('DELETE', `/devices/${d.id}/commands/nope`, { token: t.adminKey })).status).toBe(404);
    expect((await commandEvents(t, d)).map(([, s]) => s)).toEqual(['queued', 'cancelled']);
    const client = await mqttConnect(t, d);
    const box = inbox(client);
    await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    const control = await enqueue(t, d, { action: 'control' });
    expect((await box.next()).id).toBe(control.id);
    expect(box.messages).toEqual([]);
  });
});

describe('answers over HTTP', () => {
  it('the device acks with its key; an error answer fails the command; answers to finished ones are 403 INVALID_STATE', async () => {
    const d = await t.seedDevice();
    const a = await enqueue(t, d, { action: 'answer-ok', ackRequired: true });
    const b = await enqueue(t, d, { action: 'answer-error', ackRequired: true });
    const ok = await t.http('POST', `/devices/${d.id}/commands/${a.id}/ack`, { token: d.key, body: { result: { v: 1 } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: a.id, state: 'acked', result: { v: 1 }, ackTime: expect.any(String) });
    const bad = await t.http('POST', `/devices/${d.id}/commands/${b.id}/ack`, { token: d.key, body: { status: 'error' } });
    expect(bad.body).toMatchObject({ id: b.id, state: 'failed' });
    const late = await t.http('POST', `/devices/${d.id}/commands/${a.id}/ack`, { token: d.key, body: { status: 'error' } });
    expect(late.status).toBe(403);
    expect(late.body.reason).toBe('INVALID_STATE');
    expect(await stateOf(t, d, a.id)).toBe('acked');
    const events = await commandEvents(t, d);
    expect(events).toEqual([
      [a.id, 'queued'],
      [b.id, 'queued'],
      [a.id, 'acked'],
      [b.id, 'failed'],
    ]);
  });

  it("another device's answer changes nothing: its own path is 404, the other device's path refuses its key", async () => {
    const d = await t.seedDevice();
    const other = await t.seedDevice();
    const c = await enqueue(t, d, { action: 'mine', ackRequired: true });
    const viaOwn = await t.http('POST', `/devices/${other.id}/commands/${c.id}/ack`, { token: other.key, body: {} });
    expect(viaOwn.status).toBe(404);
    expect(viaOwn.body.reason).toBe('NOT_FOUND');
    const viaTheirs = await t.http('POST', `/devices/${d.id}/commands/${c.id}/ack`, { token: other.key, body: {} });
    expect([403, 404]).toContain(viaTheirs.status);
    // a project key is not the device
    expect((await t.http('POST', `/devices/${d.id}/commands/${c.id}/ack`, { token: t.adminKey, body: {} })).status).toBe(403);
    expect(await stateOf(t, d, c.id)).toBe('queued');
  });

  it('refuses a result that is not an object or is over 64 KiB, and a bad status', async () => {
    const d = await t.seedDevice();
    const c = await enqueue(t, d, { action: 'big-answer', ackRequired: true });
    for (const body of [{ result: 'text' }, { result: { s: 'x'.repeat(65_536) } }, { status: 'maybe' }]) {
      const r = await t.http('POST', `/devices/${d.id}/commands/${c.id}/ack`, { token: d.key, body });
      expect(r.status).toBe(403);
      expect(r.body.reason).toBe('INVALID_PARAMETERS');
    }
    expect(await stateOf(t, d, c.id)).toBe('queued');
  });
});

describe('the event stream', () => {
  it('carries every state change as _deviceCommandUpdated_ {id, action, state, result?}', async () => {
    const d = await t.seedDevice();
    const pk = await t.seedProjectKey(['events']);
    const peer = await wsConnect(t, `/userSession/websocket?authToken=${pk.key}&eventTypes=_deviceCommandUpdated_`);
    const mine = () => peer.frames.filter((f) => f.eventData?.id !== undefined && f.originDeviceId === d.id);
    // the stream subscribes as it opens: commands until the first one's event arrives
    let c: any;
    await eventually(async () => {
      c = await enqueue(t, d, { action: 'streamed', ackRequired: true });
      return mine().some((f) => f.eventData.id === c.id);
    }, 10_000);
    await t.http('POST', `/devices/${d.id}/commands/${c.id}/ack`, { token: d.key, body: { status: 'error', result: { why: 'test' } } });
    await eventually(() => mine().some((f) => f.eventData.id === c.id && f.eventData.state === 'failed'), 10_000);
    expect(
      mine()
        .filter((f) => f.eventData.id === c.id)
        .map((f) => [f.eventType, f.eventData]),
    ).toEqual([
      ['_deviceCommandUpdated_', { id: c.id, action: 'streamed', state: 'queued' }],
      ['_deviceCommandUpdated_', { id: c.id, action: 'streamed', state: 'failed', result: { why: 'test' } }],
    ]);
  });
});

describe('who may', () => {
  it('no credential 401; another project 404; a key without the commands scope 403; a member of the home may', async () => {
    const d = await t.seedDevice();
    expect((await t.http('POST', `/devices/${d.id}/commands`, { body: { action: 'x-y-z' } })).status).toBe(401);
    expect((await t.http('GET', `/devices/${d.id}/commands`, {})).status).toBe(401);
    const foreign = await t.seedDevice({ projectId: 2 });
    const r = await t.http('GET', `/devices/${foreign.id}/commands`, { token: t.adminKey });
    expect(r.status).toBe(404);
    expect(r.body.reason).toBe('DEVICE_NOT_FOUND');
    const { key: kvOnly } = await t.seedProjectKey(['kv']);
    expect((await t.http('POST', `/devices/${d.id}/commands`, { token: kvOnly, body: { action: 'x-y-z' } })).status).toBe(403);
    const { key: commands } = await t.seedProjectKey(['commands']);
    await enqueue(t, d, { action: 'x-y-z' }, commands);
    const homeId = await t.seedHome();
    const inHome = await t.seedDevice({ homeId });
    const member = await t.seedUser({ homeIds: [homeId] });
    const outsider = await t.seedUser();
    await enqueue(t, inHome, { action: 'from-member' }, member.token);
    expect((await t.http('GET', `/devices/${inHome.id}/commands`, { token: outsider.token })).status).toBe(404);
    // the device itself may not read or fill its outbox
    expect((await t.http('GET', `/devices/${d.id}/commands`, { token: d.key })).status).toBe(403);
    // a command is found only through its own device's path
    const c = await enqueue(t, d, { action: 'hidden' });
    expect((await t.http('GET', `/devices/${inHome.id}/commands/${c.id}`, { token: t.adminKey })).status).toBe(404);
  });
});

describe('device deletion', () => {
  it("removes the device's outbox with it", async () => {
    const d = await t.seedDevice();
    const c = await enqueue(t, d, { action: 'orphan' });
    expect((await t.http('DELETE', `/devices/${d.id}`, { token: t.adminKey })).status).toBe(204);
    await eventually(async () => (await t.deps.store.commands.get(c.id)) === undefined);
  });
});

describe('metrics', () => {
  it('exposes the outbox depth, commands by final state and the time to an answer', async () => {
    const read = async () => (await fetch(`${t.httpUrl}/metrics`)).text();
    const value = (text: string, name: string) => Number(new RegExp(`^${name.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    const before = await read();
    const d = await t.seedDevice();
    const a = await enqueue(t, d, { action: 'measured', ackRequired: true });
    const waiting = await enqueue(t, d, { action: 'waiting' });
    const mid = await read();
    expect(value(mid, 'hearth_outbox_depth')).toBeGreaterThanOrEqual(value(before, 'hearth_outbox_depth') + 2);
    await t.http('POST', `/devices/${d.id}/commands/${a.id}/ack`, { token: d.key, body: {} });
    const after = await read();
    expect(value(after, 'hearth_outbox_commands_total{state="acked"}')).toBe(value(before, 'hearth_outbox_commands_total{state="acked"}') + 1);
    expect(value(after, 'hearth_outbox_ack_seconds_count')).toBe(value(before, 'hearth_outbox_ack_seconds_count') + 1);
    // another final state, counted by its name
    expect((await t.http('DELETE', `/devices/${d.id}/commands/${waiting.id}`, { token: t.adminKey })).status).toBe(204);
    const last = await read();
    expect(value(last, 'hearth_outbox_commands_total{state="cancelled"}')).toBe(value(before, 'hearth_outbox_commands_total{state="cancelled"}') + 1);
    // both finished (the sweep may finish others meanwhile, never add any)
    expect(value(last, 'hearth_outbox_depth')).toBeLessThanOrEqual(value(mid, 'hearth_outbox_depth') - 2);
  });
});

describe('retention', () => {
  // last in the file: the sweep days ahead also expires what earlier tests left queued
  it('removes a finished command once it is older than retentionDays; keeps a younger one and an unfinished one', async () => {
    const d = await t.seedDevice();
    const done = await enqueue(t, d, { action: 'finished-one' });
    expect((await t.http('DELETE', `/devices/${d.id}/commands/${done.id}`, { token: t.adminKey })).status).toBe(204);
    const open = await enqueue(t, d, { action: 'still-waiting', ttl: 2_592_000 });
    // the worker's sweep as it runs days from now (retentionDays 7)
    const sweepAt = (days: number) =>
      sweepOutbox({
        deps: { ...t.deps, clock: { now: () => new Date(Date.now() + days * 86_400_000) } } as typeof t.deps,
        input: { batchSize: 10, retentionDays: 7 },
      });
    await sweepAt(6);
    expect(await stateOf(t, d, done.id)).toBe('cancelled');
    await sweepAt(8);
    expect(await t.deps.store.commands.get(done.id)).toBeUndefined();
    expect((await t.http('GET', `/devices/${d.id}/commands/${done.id}`, { token: t.adminKey })).status).toBe(404);
    expect(await stateOf(t, d, open.id)).toBe('queued');
  });
});
