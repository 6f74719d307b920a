// /metrics after real MQTT traffic (docs/operations.md#health-and-metrics): a device connects, is refused once with a wrong
// key, receives a command, publishes an event and a payload that is not JSON, and disconnects;
// every broker and pipeline series moves by exactly what happened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { eventually, inbox, mqttConnect, mqttRefused, sample } from './clients.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth();
});
afterAll(() => t?.close());

async function metrics(): Promise<string> {
  const r = await fetch(`${t.httpUrl}/metrics`);
  expect(r.status).toBe(200);
  return r.text();
}

describe('broker and pipeline metrics', () => {
  it('count a real MQTT session: connect, refusal, command, event, bad payload, disconnect', async () => {
    const before = await metrics();
    expect(sample(before, 'hearth_broker_connected_devices', { transport: 'mqtt' })).toBe(0);
    expect(sample(before, 'hearth_broker_connects_total', { transport: 'mqtt' })).toBe(0);
    expect(sample(before, 'hearth_broker_publishes_total', { kind: 'event' })).toBe(0);
    expect(sample(before, 'hearth_event_commit_duration_seconds_count')).toBe(0);
    expect(sample(before, 'hearth_event_commits_total')).toBe(0);
    expect(sample(before, 'hearth_event_commit_items_total')).toBe(0);

    const d = await t.seedDevice();
    expect(await mqttRefused(t, String(d.id), 'dk.wrong-key')).toBe(4);
    const c = await mqttConnect(t, d);
    const box = inbox(c);
    await c.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
    // subscribing to its KV topic brings the device a `reload` (one KV sync message)
    await c.subscribeAsync(`/devices/${d.id}/kv`, { qos: 1 });
    expect(await box.next(`/devices/${d.id}/kv`)).toMatchObject({ action: 'reload', rev: 0 });
    // the connection's _deviceConnected_ event is committed before its CONNACK
    let m = await metrics();
    expect(sample(m, 'hearth_broker_connected_devices', { transport: 'mqtt' })).toBe(1);
    expect(sample(m, 'hearth_broker_connected_devices', { transport: 'websocket' })).toBe(0);
    expect(sample(m, 'hearth_broker_connects_total', { transport: 'mqtt' })).toBe(1);
    expect(sample(m, 'hearth_broker_connect_refusals_total', { transport: 'mqtt', reason: 'INVALID_TOKEN' })).toBe(1);
    expect(sample(m, 'hearth_event_commit_duration_seconds_count')).toBe(1);
    // one transaction held it (the group commit's figures: items per commit is their ratio)
    expect(sample(m, 'hearth_event_commits_total')).toBe(1);
    expect(sample(m, 'hearth_event_commit_items_total')).toBe(1);

    const sent = await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'ping', parameters: {} } });
    expect(sent.status).toBe(204);
    expect(await box.next(`/devices/${d.id}/command`)).toEqual({ action: 'ping', parameters: {} });

    // QoS 1: the PUBACK comes after the event is committed, or after the bad one is dropped
    await c.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType: 'reading', eventData: { v: 1 } }), { qos: 1 });
    await c.publishAsync(`/devices/${d.id}/event`, '{"eventType": ', { qos: 1 });
    m = await metrics();
    expect(sample(m, 'hearth_broker_publishes_total', { kind: 'event' })).toBe(2);
    expect(sample(m, 'hearth_broker_publishes_total', { kind: 'kv' })).toBe(0);
    expect(sample(m, 'hearth_broker_publishes_dropped_total', { reason: 'payload' })).toBe(1);
    expect(sample(m, 'hearth_broker_commands_delivered_total', { transport: 'mqtt' })).toBe(1);
    expect(sample(m, 'hearth_broker_kv_syncs_total', { transport: 'mqtt' })).toBe(1);
    expect(sample(m, 'hearth_broker_kv_syncs_total', { transport: 'websocket' })).toBe(0);
    expect(sample(m, 'hearth_event_commit_duration_seconds_count')).toBe(2);
    // each publish waited for the last one's PUBACK: a transaction each
    expect(sample(m, 'hearth_event_commits_total')).toBe(2);
    expect(sample(m, 'hearth_event_commit_items_total')).toBe(2);
    const sum = sample(m, 'hearth_event_commit_duration_seconds_sum')!;
    expect(sum).toBeGreaterThan(0);
    expect(sample(m, 'hearth_event_commit_duration_seconds_bucket', { le: '+Inf' })).toBe(2);
    // the worker's webhook series are on the same registry
    expect(sample(m, 'hearth_webhook_queue_depth', { status: 'pending' })).toBe(0);

    await c.endAsync();
    m = await eventually(
      async () => {
        const text = await metrics();
        return sample(text, 'hearth_broker_connected_devices', { transport: 'mqtt' }) === 0 ? text : '';
      },
      5000,
      'the connection to be gone from the gauge',
    );
    expect(sample(m, 'hearth_broker_connects_total', { transport: 'mqtt' })).toBe(1);
    // SQLite's checkpoints on their thread: the events written are copied into the database file
    // within a pass or two (every 100 ms while the node writes)
    m = await eventually(
      async () => {
        const text = await metrics();
        return (sample(text, 'hearth_sqlite_checkpoints_total') ?? 0) >= 1 ? text : '';
      },
      10_000,
      'a checkpoint on the thread',
    );
    expect(sample(m, 'hearth_sqlite_checkpoint_failures_total')).toBe(0);
    expect(sample(m, 'hearth_sqlite_wal_frames')).toBeGreaterThan(0);
    // not in cluster mode: no pool and no Redis series
    expect(m).not.toContain('hearth_pg_pool_connections');
    expect(m).not.toContain('hearth_redis_up');
  });

  it('name every series in the Prometheus conventions: prefix, unit, _total on counters', async () => {
    const m = await metrics();
    const types = [...m.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((x) => [x[1], x[2]] as const);
    const ours = types.filter(([n]) => /^hearth_(broker|event|webhook|sqlite)_/.test(n));
    expect(ours.length).toBeGreaterThanOrEqual(10);
    for (const [name, type] of ours) {
      if (type === 'counter') expect(name).toMatch(/_total$/);
      if (type === 'histogram') expect(name).toMatch(/_seconds$/);
    }
  });
});
