// Firmware rollouts with real MQTT devices (docs/firmware.md#rollouts): waves with a stable cohort,
// the second waiting for its time; devices that install (some downloading from Hearth, some not)
// and fail; counts exact; the failure threshold pauses, resume continues; a device asleep when
// it was notified installs when it wakes; abort cancels the commands still waiting.
// Wave timing is made testable by a fractional `afterMinutes` (0.05 = 3 s): the test never waits
// for time, it checks afterwards that no wave-2 command was created before its wave could begin.
import { randomBytes } from 'node:crypto';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { eventually, mqttConnect } from '../broker/clients.js';
import { waveOf } from '../../../src/domain/rollout/index.js';
import { download, filePath, makeBundle, rawPut } from './helpers.js';

let t: TestHearth;
beforeAll(async () => {
  t = await startTestHearth({ rollouts: { tickMs: 100 } });
});
afterAll(() => t?.close());

type Behaviour = 'install' | 'download-install' | 'fail';

/** a device that follows rollouts: on `firmware-update` it installs (maybe downloading first) or answers error */
async function follower(d: SeededDevice, behaviour: Behaviour): Promise<MqttClient> {
  const client = await mqttConnect(t, d, { clean: false, clientId: `fw-${d.id}`, connectTimeout: 30_000 });
  client.on('message', (_topic, payload) => {
    const cmd = JSON.parse(payload.toString());
    if (cmd.action !== 'firmware-update') return;
    void (async () => {
      if (behaviour === 'fail') {
        await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: cmd.id, status: 'error', result: { error: 'flash write failed' } }), {
          qos: 1,
        });
        return;
      }
      if (behaviour === 'download-install') {
        const c = cmd.parameters.components[0];
        const got = await download(t, new URL(c.url).pathname, d.key);
        expect(got.status).toBe(200);
      }
      const r = await t.http('PUT', `/devices/${d.id}/bundle`, { token: d.key, body: { bundleId: cmd.parameters.bundleId } });
      expect(r.status).toBe(204);
      await client.publishAsync(`/devices/${d.id}/commandAck`, JSON.stringify({ id: cmd.id, status: 'ok' }), { qos: 1 });
    })();
  });
  await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
  return client;
}

async function rollout(id: string): Promise<any> {
  const r = await t.http('GET', `/projects/1/rollouts/${id}`, { token: t.adminKey });
  expect(r.status).toBe(200);
  return r.body;
}

async function bundleWithFile(): Promise<string> {
  const bundleId = await makeBundle(t);
  const bytes = randomBytes(4096);
  expect((await rawPut(t, filePath(bundleId), t.adminKey, [bytes], { length: bytes.length })).status).toBe(201);
  return bundleId;
}

describe('rollouts', () => {
  it('brings a bundle to 20 devices in two waves: the second waits for its time; counts exact', async () => {
    const bundleId = await bundleWithFile();
    const devices = await Promise.all(Array.from({ length: 20 }, () => t.seedDevice()));
    const behaviourOf = (i: number): Behaviour => (i % 5 === 0 ? 'fail' : i % 2 === 0 ? 'download-install' : 'install');
    // one at a time: twenty CONNECTs at once can outwait a CONNACK timeout on a busy machine
    for (const [i, d] of devices.entries()) await follower(d, behaviourOf(i));
    const waves = [{ percent: 50 }, { percent: 100, afterMinutes: 0.05 }];
    const created = await t.http('POST', '/projects/1/rollouts', {
      token: t.adminKey,
      body: { bundleId, name: 'two waves', target: { deviceIds: devices.map((d) => d.id) }, waves, failureThreshold: 100 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ bundleId, name: 'two waves', state: 'running', currentWave: 0, failureThreshold: 100, waves });
    expect(created.body.counts).toEqual({ targeted: 20, pending: 20, notified: 0, downloading: 0, installed: 0, failed: 0 });
    const id = created.body.id;

    const done = await eventually(
      async () => {
        const r = await rollout(id);
        return r.state === 'completed' && r;
      },
      30_000,
      'the rollout completed',
    );
    expect(done.counts).toEqual({ targeted: 20, pending: 0, notified: 0, downloading: 0, installed: 16, failed: 4 });
    expect(done.currentWave).toBe(1);

    const listed = await t.http('GET', `/projects/1/rollouts/${id}/devices?state=failed`, { token: t.adminKey });
    expect(listed.headers.get('vnd.tinkermode.range')).toBe('0-3/4');
    expect(listed.body.map((x: any) => x.deviceId)).toEqual(devices.filter((_, i) => behaviourOf(i) === 'fail').map((d) => d.id));
    expect(listed.body[0].error).toContain('flash write failed');

    // the cohort is stable and each wave's commands came no earlier than the wave could begin
    const start = Date.parse(created.body.creationTime);
    let second = 0;
    for (const d of devices) {
      const cmds = await t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey });
      const cmd = cmds.body.find((c: any) => c.action === 'firmware-update');
      expect(cmd.parameters).toMatchObject({ rolloutId: id, bundleId });
      expect(cmd.parameters.components[0]).toMatchObject({ componentName: 'main', componentVersionName: '2.0.0', size: 4096, sha256: expect.any(String) });
      if (waveOf(waves, id, d.id) === 1) {
        second++;
        expect(Date.parse(cmd.creationTime)).toBeGreaterThanOrEqual(start + 3000);
      }
    }
    expect(second).toBeGreaterThan(0);
    expect(second).toBeLessThan(20);

    // the events: at most one a second, the last one saying completed
    const events = await eventually(
      async () => {
        const r = await t.deps.store.events.list({ projectId: 1, eventType: '_rolloutUpdated_' }, { skip: 0, limit: 1000 });
        const mine = r.items.filter((e) => e.event.eventData.id === id).reverse();
        return mine.at(-1)?.event.eventData.state === 'completed' ? mine : undefined;
      },
      15_000,
      'the completed rollout announced',
    );
    const times = events!.map((e) => Date.parse(e.event.timestamp));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1000);
    expect(events!.at(-1)!.event.eventData.counts).toEqual(done.counts);
  });

  it('pauses itself past the threshold; a device asleep meanwhile installs when it wakes; resume completes it', async () => {
    const bundleId = await bundleWithFile();
    const failing = await Promise.all(Array.from({ length: 6 }, () => t.seedDevice()));
    const asleep = await Promise.all(Array.from({ length: 2 }, () => t.seedDevice()));
    for (const d of failing) await follower(d, 'fail');
    const created = await t.http('POST', '/projects/1/rollouts', {
      token: t.adminKey,
      body: { bundleId, target: { deviceIds: [...failing, ...asleep].map((d) => d.id) } },
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const paused = await eventually(
      async () => {
        const r = await rollout(id);
        return r.state === 'paused' && r;
      },
      30_000,
      'paused by the threshold',
    );
    expect(paused.counts.failed).toBeGreaterThanOrEqual(5);
    expect(paused.counts.installed).toBe(0);
    // the sleeping devices' commands wait in their outbox; one wakes and installs
    await follower(asleep[0]!, 'download-install');
    await eventually(async () => (await rollout(id)).counts.installed === 1, 15_000, 'the woken device installed');
    const resumed = await t.http('PATCH', `/projects/1/rollouts/${id}`, { token: t.adminKey, body: { state: 'running' } });
    expect(resumed.status).toBe(200);
    expect(resumed.body.state).toBe('running');
    await follower(asleep[1]!, 'install');
    const done = await eventually(
      async () => {
        const r = await rollout(id);
        return r.state === 'completed' && r;
      },
      30_000,
      'completed after the resume',
    );
    expect(done.counts).toEqual({ targeted: 8, pending: 0, notified: 0, downloading: 0, installed: 2, failed: 6 });
    const again = await t.http('PATCH', `/projects/1/rollouts/${id}`, { token: t.adminKey, body: { state: 'running' } });
    expect(again.status).toBe(403);
    expect(again.body.reason).toBe('INVALID_STATE');
  });

  it('aborting cancels the commands still waiting; a device that wakes later gets nothing', async () => {
    const bundleId = await bundleWithFile();
    const sleepers = await Promise.all(Array.from({ length: 3 }, () => t.seedDevice()));
    const created = await t.http('POST', '/projects/1/rollouts', { token: t.adminKey, body: { bundleId, target: { deviceIds: sleepers.map((d) => d.id) } } });
    const id = created.body.id;
    // positive control: each sleeper's command is queued
    await eventually(
      async () => {
        const all = await Promise.all(sleepers.map((d) => t.http('GET', `/devices/${d.id}/commands?state=queued`, { token: t.adminKey })));
        return all.every((r) => r.body.length === 1);
      },
      15_000,
      'the commands queued',
    );
    const aborted = await t.http('PATCH', `/projects/1/rollouts/${id}`, { token: t.adminKey, body: { state: 'aborted' } });
    expect(aborted.status).toBe(200);
    expect(aborted.body.state).toBe('aborted');
    // a command the worker's pass enqueued but had not recorded yet when the abort looked is
    // cancelled by that pass itself, right after (docs/firmware.md#rollouts)
    await eventually(
      async () => {
        const all = await Promise.all(sleepers.map((d) => t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey })));
        return all.every((r) => r.body.length === 1 && r.body[0].state === 'cancelled');
      },
      15_000,
      'every waiting command cancelled',
    );
    expect((await rollout(id)).counts).toEqual({ targeted: 3, pending: 3, notified: 0, downloading: 0, installed: 0, failed: 0 });
  });

  it('an abort while the pass enqueues reaches no connected device: the batch is announced only after the check', async () => {
    const bundleId = await bundleWithFile();
    const online = await Promise.all(Array.from({ length: 3 }, () => t.seedDevice()));
    const got = new Map<number, string[]>();
    const clients = await Promise.all(
      online.map(async (d) => {
        const client = await mqttConnect(t, d, { clientId: `abort-${d.id}`, connectTimeout: 30_000 });
        got.set(d.id, []);
        client.on('message', (_topic, payload) => got.get(d.id)!.push(JSON.parse(payload.toString()).action));
        await client.subscribeAsync(`/devices/${d.id}/command`, { qos: 1 });
        return client;
      }),
    );
    // the abort lands between the pass's first enqueue and its record (the store's own method,
    // wrapped only to choose that moment)
    const rollouts = t.deps.store.rollouts;
    const record = rollouts.recordCommand.bind(rollouts);
    let id = '';
    let abortedMidPass = false;
    rollouts.recordCommand = async (...args) => {
      if (args[0] === id && !abortedMidPass) {
        abortedMidPass = true;
        const r = await t.http('PATCH', `/projects/1/rollouts/${id}`, { token: t.adminKey, body: { state: 'aborted' } });
        expect(r.status).toBe(200);
      }
      return record(...args);
    };
    try {
      const created = await t.http('POST', '/projects/1/rollouts', {
        token: t.adminKey,
        body: { bundleId, target: { deviceIds: online.map((d) => d.id) } },
      });
      expect(created.status).toBe(201);
      id = created.body.id;
      await eventually(
        async () => {
          const all = await Promise.all(online.map((d) => t.http('GET', `/devices/${d.id}/commands`, { token: t.adminKey })));
          return abortedMidPass && all.every((r) => r.body.every((c: any) => c.state === 'cancelled'));
        },
        15_000,
        'the pass aborted mid-way and its commands cancelled',
      );
    } finally {
      rollouts.recordCommand = record;
    }
    // positive control: a command enqueued now reaches each device; had the firmware-update been
    // sent, it would have arrived first (one device's commands are delivered in order)
    for (const d of online) {
      expect((await t.http('POST', `/devices/${d.id}/commands`, { token: t.adminKey, body: { action: 'after-abort' } })).status).toBe(201);
    }
    await eventually(async () => online.every((d) => got.get(d.id)!.includes('after-abort')), 15_000, 'the control command arrives');
    for (const d of online) expect(got.get(d.id)).toEqual(['after-abort']);
    await Promise.all(clients.map((c) => c.endAsync()));
  });

  it('refuses bad input with reasons, and rollouts of another project', async () => {
    const bundleId = await makeBundle(t);
    const bad = await t.http('POST', '/projects/1/rollouts', { token: t.adminKey, body: { bundleId, waves: [{ percent: 60 }, { percent: 40 }] } });
    expect(bad.status).toBe(403);
    expect(bad.body.reason).toBe('INVALID_PARAMETERS');
    expect(JSON.stringify(bad.body.data.issues)).toContain('cumulative');
    const missing = await t.http('POST', '/projects/1/rollouts', { token: t.adminKey, body: { bundleId: 'no-such-bundle' } });
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe('BUNDLE_NOT_FOUND');
    const device = await t.seedDevice();
    expect((await t.http('GET', '/projects/1/rollouts', { token: device.key })).status).toBe(403);
    expect((await t.http('GET', '/projects/1/rollouts/nope', { token: t.adminKey })).status).toBe(404);
  });
});
