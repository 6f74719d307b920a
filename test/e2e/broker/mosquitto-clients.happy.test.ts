// Debian's mosquitto_pub / mosquitto_sub against the broker (docs/devices.md#mqtt): another MQTT stack than
// MQTT.js, as firmware would bring. Skipped where the binaries are not installed (CI installs
// mosquitto-clients).
import { execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { brokerLogLines, eventually } from './clients.js';

const have = (bin: string) => {
  try {
    execFileSync('which', [bin], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const missing = !have('mosquitto_pub') || !have('mosquitto_sub');

let t: TestHearth;
beforeAll(async () => {
  if (!missing) t = await startTestHearth();
});
afterAll(() => t?.close());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** runs a mosquitto client; `ready` resolves once it has had time to connect and subscribe */
function run(bin: 'mosquitto_pub' | 'mosquitto_sub', args: string[], timeoutMs = 5000): { done: Promise<Run>; stdout: () => string } {
  const p = spawn(bin, ['-h', '127.0.0.1', '-p', String(t.mqttPort), ...args]);
  onTestFinished(() => void p.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => p.kill('SIGTERM'), timeoutMs);
  const done = new Promise<Run>((resolve) =>
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { done, stdout: () => stdout };
}

const auth = (d: { id: number; key: string }) => ['-u', String(d.id), '-P', d.key];

describe.skipIf(missing)('mosquitto clients', () => {
  it('mosquitto_sub receives a command sent over REST', async () => {
    const d = await t.seedDevice();
    const sub = run('mosquitto_sub', [...auth(d), '-t', `/devices/${d.id}/command`, '-q', '1', '-C', '1', '-i', 'sub1']);
    await eventually(async () => (await t.deps.presence!.count(d.id)) === 1);
    // the SUBSCRIBE follows the CONNACK: retry until it is in place
    let exited = false;
    const finished = sub.done.then((r) => ((exited = true), r));
    await eventually(async () => {
      if (exited) return true;
      await t.http('PUT', `/devices/${d.id}/command`, { token: t.adminKey, body: { action: 'from-rest', parameters: { n: 1 } } });
      return false;
    }, 4000);
    const r = await finished;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n')[0])).toEqual({ action: 'from-rest', parameters: { n: 1 } });
  });

  for (const version of ['mqttv311', 'mqttv31']) {
    it(`mosquitto_pub (${version}) sends a QoS 1 event`, async () => {
      const d = await t.seedDevice();
      const eventType = `mosq${version.replace(/\W/g, '')}`;
      const r = await run('mosquitto_pub', [
        ...auth(d),
        '-V',
        version,
        '-q',
        '1',
        '-t',
        `/devices/${d.id}/event`,
        '-m',
        JSON.stringify({ eventType, eventData: { via: 'mosquitto' } }),
        '-i',
        `p-${version}`,
      ]).done;
      expect(r.code, r.stderr).toBe(0);
      const rows = await t.deps.store.events.list({ projectId: 1, eventType }, { skip: 0, limit: 1 });
      expect(rows.items[0]?.event).toMatchObject({ eventData: { via: 'mosquitto' }, originDeviceId: d.id });
    });
  }

  it('mosquitto_pub with a wrong key is refused (bad user name or password)', async () => {
    const r = await run('mosquitto_pub', ['-u', String(t.device.id), '-P', 'dk.wrong', '-t', `/devices/${t.device.id}/event`, '-m', '{}']).done;
    expect(r.code).not.toBe(0);
    expect(r.stderr.toLowerCase()).toContain('bad user name or password');
  });

  it('mosquitto_sub on a foreign topic is denied; the publish of malformed JSON is dropped and logged', async () => {
    const other = await t.seedDevice();
    const d = await t.seedDevice();
    const sub = await run('mosquitto_sub', [...auth(d), '-t', `/devices/${other.id}/command`, '-C', '1', '-W', '2'], 4000).done;
    expect(sub.stderr + sub.stdout).toMatch(/denied/i);
    const pub = await run('mosquitto_pub', [...auth(d), '-q', '1', '-t', `/devices/${d.id}/event`, '-m', '{not json']).done;
    expect(pub.code).toBe(0);
    await eventually(async () => (await brokerLogLines(t)).some((l) => l.includes(`from device ${d.id}: payload is not JSON`)));
  });

  it('mosquitto_sub gets the KV reload, then a change made over REST with its rev', async () => {
    const d = await t.seedDevice();
    await t.http('PUT', `/devices/${d.id}/kv/k1`, { token: t.adminKey, body: { value: 'v1' } });
    const sub = run('mosquitto_sub', [...auth(d), '-t', `/devices/${d.id}/kv`, '-q', '1', '-C', '2']);
    await eventually(() => sub.stdout().includes('reload'), 4000);
    await t.http('PUT', `/devices/${d.id}/kv/k2`, { token: t.adminKey, body: { value: 'v2' } });
    const lines = (await sub.done).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ action: 'reload', rev: 1, numItems: 1 });
    expect(lines[1]).toEqual({ action: 'set', rev: 2, key: 'k2', value: 'v2' });
  });
});
