// MODE's sensor app (the Sensor Cloud Eval frontend, moderepo/sensor-cloud-eval) replayed end to end
// (issue 30): every request is sent as its API layer (ModeAPI) sends it — JSON bodies, the login
// posted form-encoded with `appId`, `Authorization: ModeCloud <token>`, paths written unencoded
// (KV keys with `:`, the tsdb data query as `data?begin=<ISO>&end=<ISO>&aggregation=avg`), the
// event WebSocket at `userSession/websocket?authToken=` — against a real server, with a sensor
// gateway over real MQTT answering `startDiscovery` in a "mode" project and sending
// `timeSeriesData` and `realtimeData` events (docs/timeseries.md).
import { afterEach, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { startTestHearth, type TestHearth } from '../helpers/hearth.js';
import { eventually } from '../helpers/wait.js';
import { dropSchema } from '../helpers/db.js';
import { wsConnect, type WsPeer } from './broker/clients.js';
import { backends } from './tsdb/fixtures.js';

/** ModeAPI's two ways to send: `request` (JSON for POST/PUT/PATCH, query params otherwise) and `postForm` */
class SensorApp {
  authToken: string | undefined;
  constructor(private readonly baseUrl: string) {}

  private headers(): Record<string, string> {
    return this.authToken ? { Authorization: `ModeCloud ${this.authToken}` } : {};
  }

  async request(method: string, path: string, data?: Record<string, unknown>): Promise<{ status: number; data: any }> {
    let url = `${this.baseUrl}/${path}`;
    const init: RequestInit = { method, headers: this.headers() };
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      init.body = JSON.stringify(data ?? {});
      (init.headers as Record<string, string>)['Content-Type'] = 'application/json;charset=utf-8';
    } else if (data && Object.keys(data).length) {
      url += `?${new URLSearchParams(Object.entries(data).map(([k, v]): [string, string] => [k, String(v)]))}`;
    }
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, data: text ? JSON.parse(text) : undefined };
  }

  async postForm(path: string, postData: Record<string, unknown>): Promise<{ status: number; data: any }> {
    const body = Object.keys(postData)
      .map((p) => `${encodeURIComponent(p)}=${encodeURIComponent(String(postData[p]))}`)
      .join('&');
    const res = await fetch(`${this.baseUrl}/${path}`, {
      method: 'POST',
      headers: { ...this.headers(), 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body,
    });
    return { status: res.status, data: await res.json() };
  }
}

const MODULE_ID = '0101:28a183311676';
const SERIES = [`${MODULE_ID}-temperature:0`, `${MODULE_ID}-humidity:0`];

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.reverse()) await f();
  cleanup = [];
});

describe.each(backends)("MODE's sensor app on %s", (_name, backend) => {
  it('signs up, signs in verified, claims a gateway, discovers and links a module, and charts its series history and live points', async () => {
    const storage = backend();
    const t: TestHearth = await startTestHearth({ ...storage });
    cleanup.push(async () => {
      await t.close();
      if (storage.databaseUrl && storage.databaseSchema) await dropSchema(storage.databaseUrl, storage.databaseSchema);
    });

    // the operator's side: a "mode" project with self-signup, the tsdb module, a pre-provisioned gateway
    const project = await t.http('PATCH', '/projects/1', { token: t.adminKey, body: { allowUserSignup: true, commandActions: 'mode' } });
    expect(project.status, JSON.stringify(project.body)).toBe(200);
    expect((await t.http('POST', '/projects/1/smartModules', { token: t.adminKey, body: { id: 'tsdb', moduleType: 'tsdb' } })).status).toBe(201);
    const made = await t.http('POST', '/devices', { token: t.adminKey, body: { projectId: 1, deviceClass: 'default', name: 'sensor gateway' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const gateway: { id: number; apiKey: string; claimCode: string } = made.body;

    // Register.tsx → ModeAPI.registerUser; Login.tsx → ModeAPI.login (form-encoded, with appId)
    const app = new SensorApp(t.httpUrl);
    const email = `sensor-${Date.now()}@example.test`;
    const signedUp = await app.request('POST', 'users', { projectId: 1, name: 'Ann', email, password: 'sensor password 1' });
    expect(signedUp.status, JSON.stringify(signedUp.data)).toBe(201);
    const login = await app.postForm('auth/user', { projectId: 1, appId: 'sceval', email, password: 'sensor password 1' });
    expect(login.status, JSON.stringify(login.data)).toBe(200);
    expect(login.data).toMatchObject({ token: expect.any(String), userId: signedUp.data.id });
    app.authToken = login.data.token;
    // the app moves on from the login page only once the user is verified
    const user = await app.request('GET', `users/${login.data.userId}`);
    expect(user.data).toMatchObject({ id: signedUp.data.id, email, verified: true });

    // ModeAPI.getHome: the first home of the user, or a new one named "home"
    expect((await app.request('GET', 'homes', { userId: login.data.userId })).data).toEqual([]);
    const home = await app.request('POST', 'homes', { name: 'home' });
    expect(home.status, JSON.stringify(home.data)).toBe(201);
    const homeId: number = home.data.id;
    expect((await app.request('GET', 'homes', { userId: login.data.userId })).data.map((h: { id: number }) => h.id)).toEqual([homeId]);

    // AddGateway.tsx → ModeAPI.addDevice(homeId, claimCode)
    const claimed = await app.request('POST', 'devices', { homeId, claimCode: gateway.claimCode });
    expect(claimed.status, JSON.stringify(claimed.data)).toBeLessThan(300);
    expect((await app.request('GET', `devices/${gateway.id}`)).data).toMatchObject({ id: gateway.id, homeId });

    // ModeConnection: the event WebSocket with the token in the URL
    const events: WsPeer = await wsConnect(t, `/userSession/websocket?authToken=${app.authToken}`);
    const nextEvent = async (eventType: string) => {
      for (;;) {
        const frame = await events.next();
        if (frame?.eventType === eventType) return frame;
      }
    };

    // the gateway over MQTT: it answers startDiscovery with the modules it found
    const gw: MqttClient = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.mqttPort}`, {
      username: String(gateway.id),
      password: gateway.apiKey,
      reconnectPeriod: 0,
    });
    cleanup.push(() => gw.endAsync());
    const event = (eventType: string, eventData: unknown) =>
      gw.publishAsync(`/devices/${gateway.id}/event`, JSON.stringify({ eventType, eventData }), { qos: 1 });
    const commands: { action: string; parameters?: unknown }[] = [];
    gw.on('message', (_topic, payload) => {
      const c = JSON.parse(payload.toString());
      commands.push(c);
      if (c.action === 'startDiscovery')
        void event('discoveredSensorModules', { sensorModules: [{ sensorModuleId: MODULE_ID, modelId: '0101', sensors: ['TEMPERATURE:0', 'HUMIDITY:0'] }] });
    });
    await gw.subscribeAsync(`/devices/${gateway.id}/command`, { qos: 1 });

    // AddSensorModule.tsx → ModeConnection.startDiscovery: a camelCase action, accepted in a "mode" project
    const sent = await app.request('PUT', `devices/${gateway.id}/command`, { action: 'startDiscovery', parameters: { timeout: 30 } });
    expect(sent.status, JSON.stringify(sent.data)).toBe(204);
    const discovered = await nextEvent('discoveredSensorModules');
    expect(discovered.eventData.sensorModules[0].sensorModuleId).toBe(MODULE_ID);
    expect(commands[0]).toEqual({ action: 'startDiscovery', parameters: { timeout: 30 } });

    // linking the module: its KV key `sensorModule<id>` (a `:` in it) on the gateway, then listed by prefix
    const key = `sensorModule${MODULE_ID}`;
    const value = { id: MODULE_ID, name: 'Desk sensor', sensing: 'on', interval: 30, sensors: ['TEMPERATURE:0', 'HUMIDITY:0'] };
    const linked = await app.request('PUT', `devices/${gateway.id}/kv/${key}`, { value });
    expect(linked.status, JSON.stringify(linked.data)).toBe(204);
    const listed = await app.request('GET', `devices/${gateway.id}/kv?keyPrefix=sensorModule`);
    expect(listed.data).toEqual([expect.objectContaining({ key, value })]);
    expect((await app.request('GET', `devices/${gateway.id}/kv/${key}`)).data).toMatchObject({ key, value });

    // the gateway reports history: three points a minute apart per series, all of them (and the
    // query's begin and end below) in one clock hour, so the hourly max below is one bucket
    // whatever the time of the run (it straddled an hour once and read [20, 22])
    const HOUR = 3_600_000;
    const start = Math.floor((Date.now() - 15 * 60_000) / HOUR) * HOUR + 2 * 60_000;
    const points = [0, 1, 2].flatMap((i) =>
      SERIES.map((seriesId, s) => ({ seriesId, timestamp: new Date(start + i * 60_000).toISOString(), value: 20 + s * 30 + i })),
    );
    await event('timeSeriesData', { timeSeriesData: points });

    // SensorModule.tsx: the series of the home, each one's time range, then its aggregated data
    const series = await eventually(async () => {
      const r = await app.request('GET', `homes/${homeId}/smartModules/tsdb/timeSeries`);
      return r.data?.length === SERIES.length ? r.data : undefined;
    });
    expect(series.map((s: { id: string }) => s.id).sort()).toEqual([...SERIES].sort());
    for (const s of series) expect(s).toMatchObject({ homeId, moduleId: 'tsdb' });
    const one = await app.request('GET', `homes/${homeId}/smartModules/tsdb/timeSeries/${SERIES[0]}`);
    expect(one.data).toEqual({ id: SERIES[0], homeId, moduleId: 'tsdb' });
    const range = await app.request('GET', `homes/${homeId}/smartModules/tsdb/timeSeries/${SERIES[0]}/timeRange`);
    expect(range.data).toEqual({ seriesId: SERIES[0], begin: new Date(start).toISOString(), end: new Date(start + 120_000).toISOString() });
    const begin = new Date(start - 60_000).toISOString();
    const end = new Date(start + 5 * 60_000).toISOString();
    const avg = await app.request('GET', `homes/${homeId}/smartModules/tsdb/timeSeries/${SERIES[1]}/data?begin=${begin}&end=${end}&aggregation=avg`);
    expect(avg.status, JSON.stringify(avg.data)).toBe(200);
    expect(avg.data).toMatchObject({ seriesId: SERIES[1], aggregation: 'avg', begin, end });
    expect(avg.data.data.map((p: [string, number]) => p[1])).toEqual([50, 51, 52]);
    const max = await app.request(
      'GET',
      `homes/${homeId}/smartModules/tsdb/timeSeries/${SERIES[0]}/data?begin=${begin}&end=${end}&aggregation=max&resolution=1hour`,
    );
    expect(max.data.data.map((p: [string, number]) => p[1])).toEqual([22]);

    // the live chart: realtimeData points reach the app, for series ids the listing returned
    await event('realtimeData', { timeSeriesData: SERIES.map((seriesId, s) => ({ seriesId, timestamp: new Date().toISOString(), value: 25 + s })) });
    const live = await nextEvent('realtimeData');
    expect(live.homeId).toBe(homeId);
    for (const p of live.eventData.timeSeriesData) expect(SERIES).toContain(p.seriesId);

    // LeftNav → ModeAPI.logout: the session ends, its token is refused after
    expect((await app.request('DELETE', 'userSession')).status).toBe(204);
    expect((await app.request('GET', `users/${login.data.userId}`)).status).toBe(401);
  });
});
