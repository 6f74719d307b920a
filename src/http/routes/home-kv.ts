// Home key-value store (docs/concepts.md "home KV: same rules as device KV"). Mounted at /homes.
// Callers: a project key with scope `kv` and the members of the home read and write. Our
// decision where docs/api.md is silent: a device in the home may READ the home store (firmware
// needs the household's shared settings) but not change it, so that one compromised device
// cannot rewrite what every member and every other device of the home relies on.
import type { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import type { Caller } from '../../domain/caller.js';
import type { Deps } from '../../domain/deps.js';
import { homeFor, requireCaller } from '../../domain/auth/access.js';
import { AppError } from '../../domain/errors.js';
import { homeStore, type KvTarget } from '../../domain/kv/index.js';
import { kvRoutes, type KvMode } from './kv-routes.js';

async function homeKvTarget(deps: Pick<Deps, 'store'>, caller: Caller, homeId: number, mode: KvMode): Promise<KvTarget> {
  requireCaller(caller);
  if (caller.type !== 'device') return homeStore(await homeFor(deps, caller, homeId, ['project key', 'member'], 'kv'));
  // the device row is read again: its home may have changed since its key was issued
  const [home, device] = await Promise.all([deps.store.homes.get(homeId), deps.store.devices.get(caller.deviceId)]);
  if (!home || !device || home.projectId !== caller.projectId || device.homeId !== homeId) throw new AppError('HOME_NOT_FOUND', { homeId });
  if (mode === 'write') throw new AppError('PERMISSION_DENIED', { message: 'devices may read their home store, not change it' });
  return homeStore(home);
}

export function home_kvRoutes(): Hono<HttpEnv> {
  return kvRoutes({
    owner: 'home',
    ids: { list: 'getHomeKeyValuePairs', get: 'lookUpHomeKeyValuePair', put: 'createUpdateHomeKeyValuePair', delete: 'deleteHomeKeyValuePair' },
    auth: {
      read: 'a project key with scope kv, a member of the home, a device in the home',
      write: 'a project key with scope kv, a member of the home',
    },
    resolve: homeKvTarget,
  });
}
