// An in-process API over a real SQLite file in a temp directory (app.request(), no port), with
// the admin key of project 1. Cleans up after the test file.
import { systemResolver } from '../../src/adapters/dns-resolver.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Hono } from 'hono';
import { createSqlStore } from '../../src/adapters/sql/store.js';
import { createLocalBus } from '../../src/adapters/local/bus.js';
import { createLocalPresence } from '../../src/adapters/local/presence.js';
import { createMemoryRateLimiter } from '../../src/adapters/local/rate-limiter.js';
import { systemClock } from '../../src/ports/clock.js';
import { createFsBlobStore } from '../../src/adapters/fs/blob-store.js';
import { domainParts, toolParts } from '../../src/roles/deps.js';
import type { Deps } from '../../src/domain/deps.js';
import { bootstrapIfEmpty } from '../../src/domain/project/bootstrap.js';
import { createApi } from '../../src/http/app.js';
import { createAccessLogRecorder } from '../../src/http/access-log.js';
import { createHttpMetrics } from '../../src/http/metrics.js';
import type { ApiDeps, HttpEnv } from '../../src/http/env.js';
import type { AuthThrottle } from '../../src/ports/rate-limiter.js';

export interface TestApi {
  app: Hono<HttpEnv>;
  deps: ApiDeps;
  adminKey: string;
  /** JSON (or form) request; returns status, parsed body and headers */
  req(method: string, path: string, opts?: ReqOpts): Promise<TestResponse>;
  close(): Promise<void>;
}
export interface ReqOpts {
  token?: string;
  body?: unknown;
  form?: Record<string, string>;
  raw?: string;
  headers?: Record<string, string>;
}
export interface TestResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** the directories of APIs not closed yet: one exit listener removes what is left (one per API was a MaxListenersExceededWarning past ten in a file) */
const leftDirs = new Set<string>();
let exitHooked = false;
function removeAtExit(dir: string): void {
  leftDirs.add(dir);
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const d of leftDirs) rmSync(d, { recursive: true, force: true });
  });
}

export async function makeTestApi(
  opts: {
    rateLimit?: { perSecond: number; burst: number };
    bodyLimitBytes?: number;
    limits?: Partial<ApiDeps['limits']>;
    authThrottle?: AuthThrottle;
    /** device-deletion hooks run after the server's own (device/delete.ts) */
    deviceDeletion?: Partial<Deps['deviceDeletion']>;
  } = {},
): Promise<TestApi> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-api-'));
  // a test file that never reaches close() (a failed beforeAll) still leaves nothing behind
  removeAtExit(dir);
  const store = await createSqlStore({ url: join(dir, 'hearth.db') });
  const logger = pino({ level: 'silent' });
  const accessLog = createAccessLogRecorder({ store, logger, flushMs: 50, batchSize: 100 });
  const secret = 'test-secret-test-secret';
  // the server's own sealer, ids, pipeline and hooks (src/roles/deps.ts); a node's parts stand in
  // where the test has no use for them, presence and the throttle are real
  const parts = domainParts({ store, secret });
  const deps: ApiDeps = {
    ...toolParts(),
    ...parts,
    store,
    deviceDeletion: {
      blockers: [...parts.deviceDeletion.blockers, ...(opts.deviceDeletion?.blockers ?? [])],
      cleanups: [...parts.deviceDeletion.cleanups, ...(opts.deviceDeletion?.cleanups ?? [])],
    },
    resolver: systemResolver,
    bus: createLocalBus(),
    presence: createLocalPresence(),
    clock: systemClock,
    secret,
    limits: {
      eventDataBytes: 65536,
      kvValueBytes: 65536,
      kvKeysPerStore: 1000,
      kvStoreBytes: 262144,
      listDefault: 1000,
      listMax: 10000,
      jsonDepth: 32,
      outboxPerDevice: 100,
      firmwareFileBytes: 64 * 1024 * 1024,
      ...opts.limits,
    },
    sessionTtlSeconds: 3600,
    provisioningTtlSeconds: 600,
    streamTicketTtlSeconds: 10,
    blobs: createFsBlobStore(join(dir, 'blobs')),
    logUploads: { maxFileBytes: 104_857_600, partBytes: 5_242_880, uploadTtlSeconds: 3600 },
    webhooks: { allowPrivateTargets: false },
    publicUrl: undefined,
    logger,
    rateLimiter: createMemoryRateLimiter(opts.rateLimit ?? { perSecond: 100, burst: 200 }),
    rateLimitEnabled: !!opts.rateLimit,
    accessLog,
    metrics: createHttpMetrics(),
    bodyLimitBytes: opts.bodyLimitBytes ?? 1024 * 1024,
    authThrottle: opts.authThrottle,
  };
  const boot = await bootstrapIfEmpty({ deps });
  const app = createApi(deps);
  const req = async (method: string, path: string, o: ReqOpts = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `ModeCloud ${o.token}`;
    let body: string | undefined;
    if (o.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(o.form).toString();
    } else if (o.raw !== undefined) {
      body = o.raw;
      headers['content-type'] ??= 'application/json';
    } else if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
    const res = await app.request(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
  return {
    app,
    deps,
    adminKey: boot!.adminKey,
    req,
    async close() {
      // a test may have closed the store itself (readiness tests): the directory goes regardless
      try {
        await accessLog.close();
        await deps.bus.close();
        await store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
        leftDirs.delete(dir);
      }
    },
  };
}
