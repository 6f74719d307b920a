// The simulator as MODE's sensor gateway (`--profile sensor-gateway`, docs/timeseries.md) against a
// real server with a tsdb module and a home, in a "mode" project: it answers MODE's camelCase
// commands with MODE's events, links its first module itself through KV, follows the modules the
// app links or unlinks through KV, and its timeSeriesData points become the home's series; in a
// project without those it warns what is missing and still runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SLOW = { timeout: 300_000 };
const POLL = { timeout: 120_000, interval: 300 };

describe('device simulator, --profile sensor-gateway', () => {
  let th: TestHearth;
  beforeAll(async () => {
    th = await startTestHearth();
  }, 120_000);
  afterAll(() => th?.close());

  // first: the project is still "spec" and has no tsdb module
  it('warns what the project lacks for a sensor gateway, and still runs', SLOW, async () => {
    const args = ['--url', th.httpUrl, '--key', th.adminKey, '--mqtt', `mqtt://127.0.0.1:${th.mqttPort}`, '--json'];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/simulate.ts', ...args, '--profile', 'sensor-gateway', '--devices', '1', '--prefix', 'warn-', '--duration', '1'],
      {
        cwd: ROOT,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    expect(await new Promise((r) => child.on('exit', r)), stderr).toBe(0);
    expect(stderr).toContain(
      'warning: project 1 refuses camelCase commands such as startDiscovery (commandActions is "spec"): PATCH /projects/1 {"commandActions":"mode"}',
    );
    expect(stderr).toContain('warning: project 1 has no tsdb smart module');
    expect(stderr).toContain('warning: no --home');
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ devices: 1, errors: 0 });
  });

  it('answers discovery and module commands, and its linked modules become the home series', SLOW, async () => {
    const admin = { token: th.adminKey };
    expect((await th.http('PATCH', '/projects/1', { ...admin, body: { commandActions: 'mode' } })).status).toBe(200);
    expect((await th.http('POST', '/projects/1/smartModules', { ...admin, body: { id: 'tsdb', moduleType: 'tsdb' } })).status).toBe(201);
    const homeId = await th.seedHome();

    const args = ['--url', th.httpUrl, '--key', th.adminKey, '--mqtt', `mqtt://127.0.0.1:${th.mqttPort}`, '--json'];
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'scripts/simulate.ts', ...args, '--profile', 'sensor-gateway', '--home', String(homeId), '--devices', '1', '--prefix', 'gw-'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', r));
    try {
      const connected = async () =>
        (await th.http('GET', `/devices?projectId=1&homeId=${homeId}&isConnected=true`, admin)).body as { id: number; name: string }[];
      await expect.poll(async () => (await connected()).length, POLL).toBe(1);
      const [gw] = await connected();
      expect(gw.name).toBe('gw-1');
      const eventsOf = async (eventType: string) =>
        (await th.http('GET', `/events?projectId=1&deviceId=${gw.id}&eventType=${eventType}`, admin)).body as { eventData: any; homeId: number }[];
      const command = async (action: string, parameters: object = {}) =>
        expect((await th.http('PUT', `/devices/${gw.id}/command`, { ...admin, body: { action, parameters } })).status).toBe(204);
      const answer = async (eventType: string, count: number) => {
        await expect.poll(async () => (await eventsOf(eventType)).length, POLL).toBe(count);
        // newest first
        return (await eventsOf(eventType))[0].eventData;
      };

      // it linked its first module itself, through its KV, once connected
      const kvModules = async () => (await th.http('GET', `/devices/${gw.id}/kv?keyPrefix=sensorModule`, admin)).body as { key: string; value: any }[];
      await expect.poll(async () => (await kvModules()).length, POLL).toBe(1);
      const [own] = await kvModules();
      expect(own.key).toMatch(/^sensorModule0101:[0-9a-f]{12}$/);
      expect(own.value).toMatchObject({ sensing: 'on', interval: 10, sensors: ['TEMPERATURE:0', 'HUMIDITY:0'] });

      // startDiscovery (camelCase, accepted in a "mode" project): two modules, the first the linked one
      await command('startDiscovery', { timeout: 30 });
      const found = (await answer('discoveredSensorModules', 1)).sensorModules as { sensorModuleId: string; modelId: string; sensors: string[] }[];
      expect(found).toHaveLength(2);
      for (const m of found) {
        expect(m.sensorModuleId).toMatch(/^0101:[0-9a-f]{12}$/);
        expect(m).toMatchObject({ modelId: '0101', sensors: ['TEMPERATURE:0', 'HUMIDITY:0'] });
      }
      expect(own.key).toBe(`sensorModule${found[0].sensorModuleId}`);

      // the app links the second one through KV, with a 1 s interval
      const second = found[1].sensorModuleId;
      const value = { id: second, name: 'Desk', sensing: 'on', interval: 1, sensors: ['TEMPERATURE:0', 'HUMIDITY:0'] };
      expect((await th.http('PUT', `/devices/${gw.id}/kv/sensorModule${second}`, { ...admin, body: { value } })).status).toBe(204);

      // both modules' series are listed in the home's tsdb module
      const expected = found.flatMap((m) => [`${m.sensorModuleId}-humidity:0`, `${m.sensorModuleId}-temperature:0`]).sort();
      const series = async () =>
        ((await th.http('GET', `/homes/${homeId}/smartModules/tsdb/timeSeries`, admin)).body as { id: string }[]).map((s) => s.id).sort();
      await expect.poll(series, POLL).toEqual(expected);
      // the second module's interval (1 s) gives its series several points; values are plausible
      const range = async () => (await th.http('GET', `/homes/${homeId}/smartModules/tsdb/timeSeries/${second}-temperature:0/timeRange`, admin)).body;
      await expect
        .poll(async () => {
          const r = await range();
          return r.end > r.begin;
        }, POLL)
        .toBe(true);
      const { begin, end } = await range();
      const data = await th.http(
        'GET',
        `/homes/${homeId}/smartModules/tsdb/timeSeries/${second}-temperature:0/data?begin=${begin}&end=${new Date(Date.parse(end) + 1).toISOString()}&aggregation=max&resolution=5sec`,
        admin,
      );
      expect(data.status, JSON.stringify(data.body)).toBe(200);
      for (const [, v] of data.body.data as [string, number][]) (expect(v).toBeGreaterThan(10), expect(v).toBeLessThan(33));

      // live values for the linked modules' series, in the home
      await expect.poll(async () => (await eventsOf('realtimeData')).length, POLL).toBeGreaterThan(0);
      const [live] = await eventsOf('realtimeData');
      expect(live.homeId).toBe(homeId);
      for (const p of live.eventData.timeSeriesData) expect(expected).toContain(p.seriesId);

      // listSensorModules: both linked; after the app unlinks one, only the other
      await command('listSensorModules');
      expect((await answer('sensorModuleList', 1)).sensorModules.map((m: { sensorModuleId: string }) => m.sensorModuleId).sort()).toEqual(
        found.map((m) => m.sensorModuleId).sort(),
      );
      expect((await th.http('DELETE', `/devices/${gw.id}/kv/sensorModule${second}`, admin)).status).toBe(204);
      await command('getSensorModuleStatus', { sensorModuleId: second });
      expect(await answer('sensorModuleStatus', 1)).toMatchObject({ sensorModuleId: second, linked: false });
      await command('listSensorModules');
      expect((await answer('sensorModuleList', 2)).sensorModules.map((m: { sensorModuleId: string }) => m.sensorModuleId)).toEqual([found[0].sensorModuleId]);
      await command('getSensorModuleStatus', { sensorModuleId: found[0].sensorModuleId });
      expect(await answer('sensorModuleStatus', 2)).toMatchObject({ sensorModuleId: found[0].sensorModuleId, linked: true, sensing: true, interval: 10 });
      await command('syncClock', { timestamp: 1 });
      expect(await answer('clockSynced', 1)).toMatchObject({ time: expect.any(String) });
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited, stderr).toBe(0);
    const sum = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(sum).toMatchObject({ devices: 1, errors: 0 });
    expect(sum.commandsAnswered).toBe(sum.commandsReceived);
    expect(sum.commandsReceived).toBe(6);
  });

  it('refuses an unknown profile with the reason', SLOW, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/simulate.ts', '--profile', 'thermostat', '--key', 'x'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await new Promise((r) => child.on('exit', r))).toBe(2);
    expect(stderr).toContain('--profile must be default or sensor-gateway, got "thermostat"');
  });
});
