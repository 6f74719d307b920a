// An in-process Hearth for webhook tests: the API over a real SQLite file (makeTestApi), a real
// worker on the same store and bus with a fast retry schedule, a home and a device in it. Events
// go through the one event pipeline (emitEvent) or the HTTP route; deliveries go out over real
// sockets to the receivers of receiver.ts.
import { onTestFinished } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { createWorker, type Worker, type WebhookWorkerConfig } from '../../../src/worker/index.js';
import { emitEvent } from '../../../src/domain/event/emit.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import type { EventRecord } from '../../../src/ports/store.js';
import type { DeliveryRow } from '../../../src/ports/queue.js';
import { startThread } from '../../../src/adapters/thread-port.js';
import { generateToken } from '../../helpers/credentials.js';

export interface Harness {
  /** stops the worker and removes the API and its data directory (once) */
  close(): Promise<void>;
  t: TestApi;
  worker: Worker;
  projectId: number;
  homeId: number;
  deviceId: number;
  deviceKey: string;
  /** POST a module through the API; returns the answer body (keys in full) */
  createModule(body: Record<string, unknown>): Promise<any>;
  /** an event of the home through the event pipeline */
  emit(eventType: string, eventData?: Record<string, unknown>, extra?: Partial<EventRecord>): Promise<string>;
  deliveries(moduleId: string): Promise<DeliveryRow[]>;
  logs(): Promise<string[]>;
  /** a user token; a member of the harness home unless `member` is false */
  userToken(member?: boolean): Promise<string>;
  /** a project key of project 1 with these scopes */
  projectKey(scopes: string[]): Promise<string>;
}

export interface HarnessOptions extends Partial<WebhookWorkerConfig> {
  /** the API's target policy (module settings); default true, as the receivers are on loopback */
  allowPrivateTargets?: boolean;
  /** the worker's own policy at dial time; default = allowPrivateTargets */
  workerAllowPrivate?: boolean;
  startWorker?: boolean;
  /**
   * 'test' (default): cleaned up when the test finishes; 'caller': by the caller's own afterAll
   * calling close() (a hook registered from inside beforeAll would never run)
   */
  cleanup?: 'test' | 'caller';
}

export async function makeHarness(o: HarnessOptions = {}): Promise<Harness> {
  const t = await makeTestApi();
  const allow = o.allowPrivateTargets ?? true;
  t.deps.webhooks = { allowPrivateTargets: allow };
  const worker = createWorker({
    threads: startThread,
    ...t.deps,
    webhooks: {
      allowPrivateTargets: o.workerAllowPrivate ?? allow,
      timeoutMs: o.timeoutMs ?? 2000,
      retryScheduleSeconds: o.retryScheduleSeconds ?? [0.1, 0.1, 0.1],
      pollMs: o.pollMs ?? 100,
      concurrency: o.concurrency ?? 8,
      leaseSeconds: o.leaseSeconds,
    },
    registry: t.deps.metrics.registry,
    jitter: () => 0.5,
    closeGraceMs: 200,
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await worker.close();
      await t.close();
    })());
  if (o.cleanup !== 'caller') onTestFinished(close);
  if (o.startWorker !== false) await worker.start();
  const now = new Date().toISOString();
  const store = t.deps.store;
  const home = await store.homes.create({ projectId: 1, name: 'home', creationTime: now });
  const deviceKey = generateToken('dk.');
  const device = await store.devices.create({
    projectId: 1,
    deviceClass: 'default',
    homeId: home.id,
    name: 'sensor',
    description: null,
    tag: null,
    apiKeyHash: hashToken(deviceKey),
    apiKeySealed: t.deps.sealer.seal(deviceKey),
    claimCodeHash: null,
    claimCodeSealed: null,
    claimExpirationTime: null,
    claimTime: null,
    creationTime: now,
    bundleInstalled: null,
    bundleInstallTime: null,
    channel: null,
  });
  return {
    close,
    t,
    worker,
    projectId: 1,
    homeId: home.id,
    deviceId: device.id,
    deviceKey,
    async createModule(body) {
      const r = await t.req('POST', '/projects/1/smartModules', { token: t.adminKey, body });
      if (r.status !== 201) throw new Error(`module not created: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    emit(eventType, eventData = {}, extra = {}) {
      const event: EventRecord = {
        eventType,
        eventData,
        timestamp: new Date().toISOString(),
        homeId: home.id,
        originDeviceId: device.id,
        originDeviceClass: 'default',
        ...extra,
      };
      return emitEvent(t.deps, { projectId: 1, event });
    },
    async deliveries(moduleId) {
      return (await store.deliveries.list({ projectId: 1, moduleId }, { skip: 0, limit: 10000 })).items;
    },
    async userToken(member = true) {
      const now = new Date().toISOString();
      const user = await store.users.create({
        projectId: 1,
        email: `u${Math.random()}@x.io`,
        name: 'u',
        passwordHash: 'unused',
        canCreateDevices: false,
        creationTime: now,
      });
      if (member) await store.members.upsert({ homeId: home.id, userId: user.id, role: 'member', creationTime: now });
      const token = generateToken('ut.');
      await store.sessions.create({
        tokenHash: hashToken(token),
        userId: user.id,
        projectId: 1,
        creationTime: now,
        expirationTime: new Date(Date.now() + 3600_000).toISOString(),
      });
      return token;
    },
    async projectKey(scopes) {
      const key = generateToken('pk.');
      await store.apiKeys.create({
        id: `k${Math.random().toString(36).slice(2)}`,
        projectId: 1,
        name: 'scoped',
        scopes,
        keyHash: hashToken(key),
        creationTime: new Date().toISOString(),
      });
      return key;
    },
    async logs() {
      return (await store.logs.list({ projectId: 1, source: 'webhooks' }, { skip: 0, limit: 1000 })).items.map((l) => l.text);
    },
  };
}
