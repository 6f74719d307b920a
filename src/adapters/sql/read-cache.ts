// A per-process cache of the rows every authenticated request looks up: the project key or
// session (and its user) behind a token, and the device it names. Through Kysely each lookup cost
// more than the rest of a GET (`npm run bench -- api`: half of the request's CPU).
//
// Exactness, not a TTL: a revoked key, an ended session or a changed device must be seen by the
// very next lookup. So
//   - every write through this store drops what it touches, after the write (after the commit,
//     inside a transaction), before the write's caller goes on;
//   - a lookup that was under way while anything was dropped does not fill the cache (it may
//     have read the row before the write: `generation`);
//   - writes by others (the admin CLI, other cluster nodes) arrive through a ChangeFeed
//     (change-feed.ts): SQLite's data_version, read again before the hits of each turn of the
//     event loop, or PostgreSQL notifications sent by triggers at commit; while a feed cannot
//     vouch for the cache, it is bypassed. (Another cluster node learns of a change when the
//     notification arrives, not before: the node that made the change refuses at once.)
// Rows are copied in and out: a caller may change the object it gets.
import type { ApiKeyRow, DeviceRow, SessionRow, Store, UserRow } from '../../ports/store.js';

/** what a write (here or elsewhere) changed */
export type Change =
  | { table: 'apiKeys'; keyHash?: string; id?: string }
  | { table: 'sessions'; tokenHash?: string; userId?: number }
  | { table: 'users'; id: number }
  | { table: 'devices'; id?: number };

/** what a change feed tells the cache */
export interface CacheSink {
  apply(change: Change): void;
  /** forget everything (the feed may have missed changes) */
  clear(): void;
}

export interface ChangeFeed {
  /** whether cached rows may be served now (it may clear the cache first) */
  usable(): boolean;
  close(): Promise<void>;
}

let writes = 0;
/** writes to the cached tables through any cached store of this process (change-feed.ts) */
export const localWrites = (): number => writes;

/** entries per table; the oldest goes first */
const MAX_ROWS = 20_000;

class Rows implements CacheSink {
  keys = new Map<string, ApiKeyRow>();
  sessions = new Map<string, SessionRow>();
  users = new Map<number, UserRow>();
  devices = new Map<number, DeviceRow>();
  /** a key hash to the device it was last seen on; the device row says if it still holds */
  deviceByKeyHash = new Map<string, number>();
  /** bumped by every change: a lookup that began before it does not fill */
  generation = 0;

  apply(c: Change): void {
    this.generation++;
    switch (c.table) {
      case 'apiKeys':
        if (c.keyHash !== undefined) this.keys.delete(c.keyHash);
        if (c.id !== undefined) for (const [h, k] of this.keys) if (k.id === c.id) this.keys.delete(h);
        break;
      case 'sessions':
        if (c.tokenHash !== undefined) this.sessions.delete(c.tokenHash);
        if (c.userId !== undefined) for (const [h, s] of this.sessions) if (s.userId === c.userId) this.sessions.delete(h);
        break;
      case 'users':
        this.users.delete(c.id);
        break;
      case 'devices':
        if (c.id === undefined) {
          this.devices.clear();
          this.deviceByKeyHash.clear();
        } else {
          // its key hash entry is of no use without the row (peekDeviceByKeyHash needs both):
          // every connect drops the row (the presence write), and the entry stayed, a key hash
          // string a device (memory per device, issue #25)
          const row = this.devices.get(c.id);
          if (row && this.deviceByKeyHash.get(row.apiKeyHash) === c.id) this.deviceByKeyHash.delete(row.apiKeyHash);
          this.devices.delete(c.id);
        }
        break;
    }
  }

  clear(): void {
    this.generation++;
    this.keys.clear();
    this.sessions.clear();
    this.users.clear();
    this.devices.clear();
    this.deviceByKeyHash.clear();
  }
}

/** each repo with its peek methods added */
function withPeeks<R extends Record<string, object>>(repos: R, peeks: { [K in keyof R]?: object }): R {
  const out = { ...repos };
  for (const k in peeks) out[k] = { ...repos[k], ...peeks[k] } as R[typeof k];
  return out;
}

function put<K, V>(map: Map<K, V>, key: K, value: V): void {
  if (map.size >= MAX_ROWS && !map.has(key)) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

// one function per row type: a copy shared by all of them would be megamorphic (slow) in V8
const copyKey = (k: ApiKeyRow): ApiKeyRow => ({ ...k, scopes: [...k.scopes] });
const copySession = (r: SessionRow): SessionRow => ({ ...r });
const copyUser = (r: UserRow): UserRow => ({ ...r });
const copyDevice = (r: DeviceRow): DeviceRow => ({ ...r });

/**
 * Wraps a store. `feed` is made with the cache's sink; it is closed with the store.
 */
export function withReadCache<S extends Store>(inner: S, makeFeed: (sink: CacheSink) => ChangeFeed): S {
  const rows = new Rows();
  const feed = makeFeed(rows);

  /** a hit the feed vouches for, copied; undefined when the store must be asked */
  function peek<K, V>(map: Map<K, V>, key: K, dup: (v: V) => V): V | undefined {
    if (!feed.usable()) return undefined;
    const hit = map.get(key);
    return hit === undefined ? undefined : dup(hit);
  }

  /** a lookup: a hit when the feed vouches for the cache, else the store, filling unless changed meanwhile */
  async function lookup<K, V>(map: Map<K, V>, key: K, load: () => Promise<V | undefined>, dup: (v: V) => V): Promise<V | undefined> {
    const hit = peek(map, key, dup);
    if (hit !== undefined) return hit;
    if (!feed.usable()) return load();
    const generation = rows.generation;
    const v = await load();
    if (v !== undefined && generation === rows.generation) put(map, key, dup(v));
    return v;
  }

  /** a device by key hash, held and still holding that key */
  function peekDeviceByKeyHash(h: string): DeviceRow | undefined {
    if (!feed.usable()) return undefined;
    const id = rows.deviceByKeyHash.get(h);
    const hit = id === undefined ? undefined : rows.devices.get(id);
    // a regenerated key leaves its old hash pointing at a row that no longer has it
    return hit && hit.apiKeyHash === h ? copyDevice(hit) : undefined;
  }

  // Outside a transaction the repos also answer synchronously from what the cache holds (the
  // API's admission and device reads take no promise on a hit); a transaction's view has no peek.
  const peeks = {
    apiKeys: { peekByHash: (h: string) => peek(rows.keys, h, copyKey) },
    sessions: { peekByHash: (h: string) => peek(rows.sessions, h, copySession) },
    users: { peek: (id: number) => peek(rows.users, id, copyUser) },
    devices: { peek: (id: number) => peek(rows.devices, id, copyDevice), peekByKeyHash: peekDeviceByKeyHash },
  };

  /** the four repos over `s`; `cached` false inside a transaction (it must see its own writes) */
  function repos(s: Store, cached: boolean, changed: (c: Change) => void): Pick<Store, 'apiKeys' | 'sessions' | 'users' | 'devices'> {
    // after the write, whether it succeeded or not (a failed one may have been applied partly)
    const writing = async <T>(write: Promise<T>, c: Change): Promise<T> => {
      try {
        return await write;
      } finally {
        writes++;
        changed(c);
      }
    };
    return {
      apiKeys: {
        ...s.apiKeys,
        getByHash: (h) => (cached ? lookup(rows.keys, h, () => s.apiKeys.getByHash(h), copyKey) : s.apiKeys.getByHash(h)),
        delete: (id) => writing(s.apiKeys.delete(id), { table: 'apiKeys', id }),
      },
      sessions: {
        ...s.sessions,
        getByHash: (h) => (cached ? lookup(rows.sessions, h, () => s.sessions.getByHash(h), copySession) : s.sessions.getByHash(h)),
        delete: (h) => writing(s.sessions.delete(h), { table: 'sessions', tokenHash: h }),
        deleteForUser: (userId) => writing(s.sessions.deleteForUser(userId), { table: 'sessions', userId }),
      },
      users: {
        ...s.users,
        get: (id) => (cached ? lookup(rows.users, id, () => s.users.get(id), copyUser) : s.users.get(id)),
        update: (id, patch) => writing(s.users.update(id, patch), { table: 'users', id }),
        delete: (id) => writing(s.users.delete(id), { table: 'users', id }),
      },
      devices: {
        ...s.devices,
        get: (id) => (cached ? lookup(rows.devices, id, () => s.devices.get(id), copyDevice) : s.devices.get(id)),
        getByKeyHash: (h) => (cached ? deviceByKeyHash(s, h) : s.devices.getByKeyHash(h)),
        update: (id, patch) => writing(s.devices.update(id, patch), { table: 'devices', id }),
        claim: (id, homeId, now) => writing(s.devices.claim(id, homeId, now), { table: 'devices', id }),
        setConnected: (id, connected, time) => writing(s.devices.setConnected(id, connected, time), { table: 'devices', id }),
        setConnectedMany: async (changes) => {
          try {
            await s.devices.setConnectedMany(changes);
          } finally {
            writes++;
            for (const c of changes) changed({ table: 'devices', id: c.id });
          }
        },
        markAllOffline: (time) => writing(s.devices.markAllOffline(time), { table: 'devices' }),
        delete: (id) => writing(s.devices.delete(id), { table: 'devices', id }),
      },
    };
  }

  async function deviceByKeyHash(s: Store, h: string): Promise<DeviceRow | undefined> {
    const hit = peekDeviceByKeyHash(h);
    if (hit) return hit;
    if (!feed.usable()) return s.devices.getByKeyHash(h);
    const generation = rows.generation;
    const d = await s.devices.getByKeyHash(h);
    if (d && generation === rows.generation) {
      put(rows.devices, d.id, copyDevice(d));
      put(rows.deviceByKeyHash, h, d.id);
    }
    return d;
  }

  // Inside a transaction: lookups go to the transaction; each write drops its rows at once and
  // again after the commit (a lookup elsewhere may have refilled them from the committed rows).
  function transactional(tx: Store, pending: Change[]): Store {
    const view: Store = {
      ...tx,
      transaction: (fn) => fn(view),
      ...repos(tx, false, (c) => {
        rows.apply(c);
        pending.push(c);
      }),
    };
    return view;
  }

  const outer: Store = {
    ...inner,
    async transaction(fn, how) {
      const pending: Change[] = [];
      try {
        return await inner.transaction((tx) => fn(transactional(tx, pending)), how);
      } finally {
        if (pending.length) writes++;
        for (const c of pending) rows.apply(c);
      }
    },
    ...withPeeks(
      repos(inner, true, (c) => rows.apply(c)),
      peeks,
    ),
    async close() {
      rows.clear();
      await feed.close();
      await inner.close();
    },
  };
  // `...inner` kept whatever else the inner store carries (SqlStore's handle)
  return outer as S;
}
