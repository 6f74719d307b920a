// A cluster of real Hearth processes on loopback (cluster mode, issue #6): nodes with roles of
// their own, each with its own data directory and ports, sharing one PostgreSQL schema and one
// Redis key prefix that belong to this cluster alone, and one server secret. The first node
// starts alone on the empty schema, so it is the one that creates project 1 and writes
// `admin.key` into ITS data directory; the others then start side by side. close() stops every
// node and removes the schema, the keys under the prefix and the data directories.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closeRedis, connectRedis, type RedisClient } from '../../src/adapters/redis/client.js';
import { redisKeys } from '../../src/adapters/redis/keys.js';
import { dropSchema, freshSchemaName } from './db.js';
import { deleteKeys, testPrefix } from './redis.js';
import { removeDataDir, startHearthProcess, type HearthProcess } from './process.js';

export const clusterDatabaseUrl: string | undefined = process.env.HEARTH_TEST_DATABASE_URL || undefined;
export const clusterRedisUrl: string | undefined = process.env.HEARTH_TEST_REDIS_URL || undefined;
/** both services are configured: the cluster suites run; otherwise they are skipped */
export const canRunCluster = Boolean(clusterDatabaseUrl && clusterRedisUrl);

export type Role = 'broker' | 'api' | 'worker';

export interface NodeSpec {
  name: string;
  roles: Role[];
  /** HEARTH_* settings of this node only (over the cluster's) */
  env?: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  body: any;
  headers: Headers;
}

export interface Cluster {
  schema: string;
  prefix: string;
  databaseUrl: string;
  redisUrl: string;
  /** the admin project key the first node wrote at bootstrap */
  adminKey: string;
  node(name: string): HearthProcess;
  /** starts one more node (or a node of that name again after a kill, on new ports) */
  start(spec: NodeSpec): Promise<HearthProcess>;
  /** a real HTTP request to a node; JSON in and out; the admin key unless another token is given */
  http(node: string | HearthProcess, method: string, path: string, opts?: { token?: string | null; body?: unknown }): Promise<HttpAnswer>;
  /** ids of the nodes heartbeating in Redis now (every role registers one) */
  liveNodeIds(): Promise<string[]>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  nodes: NodeSpec[];
  /** HEARTH_* settings of every node */
  env?: Record<string, string>;
  /** default: HEARTH_TEST_REDIS_URL */
  redisUrl?: string;
}

// a node's start only bounds a hang: under load (CI beside other jobs on 2 cores), 90 s once did
// not see the first node's /healthz, and at a load average of 45 to 57 (stress-ng and six agents
// on 2 cores) 180 s did not see one of the four started side by side
const START_TIMEOUT_MS = 300_000;
/**
 * the timeout of a hook that starts a cluster: the first node, then the rest side by side, then
 * their heartbeats, each bounded by START_TIMEOUT_MS above. It only bounds a hang: a loaded machine
 * (a 2-core CI box beside other jobs) once took longer than the 120 s these hooks had.
 */
export const CLUSTER_START_HOOK_MS = 3 * START_TIMEOUT_MS + 30_000;

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const databaseUrl = clusterDatabaseUrl;
  const redisUrl = opts.redisUrl ?? clusterRedisUrl;
  if (!databaseUrl || !redisUrl) throw new Error('a cluster needs HEARTH_TEST_DATABASE_URL and HEARTH_TEST_REDIS_URL');
  const schema = freshSchemaName();
  const prefix = testPrefix();
  const keys = redisKeys(prefix);
  const common: Record<string, string> = {
    HEARTH_DATABASE_URL: databaseUrl,
    HEARTH_DATABASE_SCHEMA: schema,
    HEARTH_REDIS_URL: redisUrl,
    HEARTH_REDIS_PREFIX: prefix,
    // every node must open the device keys the others sealed
    HEARTH_SECRET: randomBytes(32).toString('base64url'),
    HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
    ...opts.env,
  };
  const nodes = new Map<string, HearthProcess>();
  const all: HearthProcess[] = [];
  // the test's own connection: readiness of nodes without an HTTP port, and the cleanup
  const redis: RedisClient = await connectRedis({ url: redisUrl, onError: () => undefined });
  const heartbeating = async () => redis.zrange(keys.nodes, 0, -1);
  // ids already taken by a started node: a node without HTTP is up once an id of its own appears
  const claimed = new Set<string>();

  const start = async (spec: NodeSpec): Promise<HearthProcess> => {
    const before = new Set(await heartbeating());
    const httpRole = spec.roles.includes('api') || spec.roles.includes('broker');
    const p = await startHearthProcess({
      name: spec.name,
      timeoutMs: START_TIMEOUT_MS,
      env: { ...common, HEARTH_ROLES: spec.roles.join(','), ...spec.env },
      // a worker-only node has no HTTP port: it is up once its presence heartbeat is in Redis
      ready: httpRole
        ? undefined
        : async () => {
            const fresh = (await heartbeating()).find((id) => !before.has(id) && !claimed.has(id));
            if (fresh) claimed.add(fresh);
            return Boolean(fresh);
          },
    });
    all.push(p);
    nodes.set(spec.name, p);
    return p;
  };

  const close = async () => {
    await Promise.all(all.map((p) => p.kill('SIGTERM').catch(() => undefined)));
    for (const p of all) removeDataDir(p);
    await dropSchema(databaseUrl, schema).catch(() => undefined);
    // a Redis of the test's own may be down by now: its keys go with it
    if (redis.status === 'ready') await deleteKeys(redis, prefix).catch(() => undefined);
    await closeRedis(redis);
  };

  let adminKey = '';
  try {
    const [first, ...rest] = opts.nodes;
    const boot = await start(first);
    adminKey = readFileSync(join(boot.dataDir, 'admin.key'), 'utf8').trim();
    await Promise.all(rest.map(start));
    // every node heartbeats once it is up: a node without HTTP may have taken another's id above
    const end = Date.now() + START_TIMEOUT_MS;
    while ((await heartbeating()).length < all.length) {
      if (Date.now() > end) throw new Error(`only ${(await heartbeating()).length} of ${all.length} nodes heartbeat`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } catch (e) {
    await close();
    throw e;
  }

  const node = (name: string) => {
    const p = nodes.get(name);
    if (!p) throw new Error(`no node ${name}`);
    return p;
  };

  return {
    schema,
    prefix,
    databaseUrl,
    redisUrl,
    adminKey,
    node,
    start,
    async http(target, method, path, o = {}) {
      const p = typeof target === 'string' ? node(target) : target;
      const token = o.token === undefined ? adminKey : o.token;
      const r = await fetch(`${p.url}${path}`, {
        method,
        headers: { ...(token ? { authorization: `ModeCloud ${token}` } : {}), ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
      const text = await r.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: r.status, body, headers: r.headers };
    },
    liveNodeIds: heartbeating,
    close,
  };
}
