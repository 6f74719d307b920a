// A Hearth with a tsdb module, a home with a gateway device speaking MQTT, and the people of the
// home, for the time-series tests (docs/timeseries.md). Requests use the shapes MODE's sensor app
// sends: GET paths under /homes/{homeId}/smartModules/tsdb/timeSeries, the data query written into
// the URL unencoded (`data?begin=<ISO>&end=<ISO>&aggregation=avg`), `Authorization: ModeCloud`.
import { onTestFinished } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { startTestHearth, type SeededDevice, type TestHearth } from '../../helpers/hearth.js';
import { dropSchema, freshSchemaName, testDatabaseUrl } from '../../helpers/db.js';

export const backends: [string, () => { databaseUrl: string | null; databaseSchema: string | null }][] = [
  ['sqlite', () => ({ databaseUrl: null, databaseSchema: null })],
];
if (testDatabaseUrl) backends.push(['postgres', () => ({ databaseUrl: testDatabaseUrl!, databaseSchema: freshSchemaName() })]);

export interface TsdbWorld {
  t: TestHearth;
  homeId: number;
  gateway: SeededDevice;
  member: string;
  owner: string;
  /** GET with the app's URL shape; `token` defaults to the member's */
  get(path: string, token?: string): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function tsdbWorld(backend: () => { databaseUrl: string | null; databaseSchema: string | null }): Promise<TsdbWorld> {
  const storage = backend();
  const t = await startTestHearth({ ...storage, webhooks: { allowPrivateTargets: true } });
  const created = await t.http('POST', '/projects/1/smartModules', { token: t.adminKey, body: { id: 'tsdb', moduleType: 'tsdb' } });
  if (created.status !== 201) throw new Error(`tsdb module not created: ${created.status} ${JSON.stringify(created.body)}`);
  const homeId = await t.seedHome();
  const gateway = await t.seedDevice({ homeId });
  const member = (await t.seedUser({ homeIds: [homeId] })).token;
  const ownerUser = await t.seedUser();
  await t.deps.store.members.upsert({ homeId, userId: ownerUser.userId, role: 'owner', creationTime: new Date().toISOString() });
  return {
    t,
    homeId,
    gateway,
    member,
    owner: ownerUser.token,
    get: (path, token = member) => t.http('GET', `/homes/${homeId}/smartModules/tsdb/timeSeries${path}`, { token }),
    async close() {
      await t.close();
      if (storage.databaseUrl && storage.databaseSchema) await dropSchema(storage.databaseUrl, storage.databaseSchema);
    },
  };
}

/** the gateway over MQTT, closed when the test ends (outside a test, `inTest: false`: the caller closes it) */
export async function connectGateway(
  t: TestHearth,
  d: SeededDevice,
  inTest = true,
): Promise<MqttClient & { event(eventType: string, eventData: unknown): Promise<void> }> {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.mqttPort}`, { username: String(d.id), password: d.key, reconnectPeriod: 0 });
  if (inTest) onTestFinished(() => client.endAsync());
  return Object.assign(client, {
    async event(eventType: string, eventData: unknown) {
      // QoS 1: the PUBACK comes once the event is committed
      await client.publishAsync(`/devices/${d.id}/event`, JSON.stringify({ eventType, eventData }), { qos: 1 });
    },
  });
}

/** the app's data request: `data?begin=...&end=...&aggregation=...` written into the URL as is */
export const dataPath = (seriesId: string, begin: number, end: number, aggregation = 'avg', resolution?: string): string =>
  `/${seriesId}/data?begin=${new Date(begin).toISOString()}&end=${new Date(end).toISOString()}&aggregation=${aggregation}` +
  (resolution ? `&resolution=${resolution}` : '');
