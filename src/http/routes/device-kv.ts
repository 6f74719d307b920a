// Device key-value store (docs/api.md#device-operations getKeyValuePairsReceiveUpdates, lookUpKeyValuePair,
// createUpdateKeyValuePair, deleteKeyValuePair; docs/devices.md#kv-sync). Mounted at /devices (see index.ts).
// Callers: a project key with scope `kv`, a member of the device's home, the device itself.
// The live WebSocket on GET /devices/{id}/kv is the broker's: upgrades never reach Hono.
import type { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { deviceFor } from '../../domain/auth/access.js';
import { deviceStore } from '../../domain/kv/index.js';
import { kvRoutes } from './kv-routes.js';

// the same three kinds of caller read and write (docs/concepts.md#devices table)
const CALLERS = 'a project key with scope kv, a member of the device home, the device itself';

export function device_kvRoutes(): Hono<HttpEnv> {
  return kvRoutes({
    owner: 'device',
    auth: { read: CALLERS, write: CALLERS },
    resolve: async (deps, caller, deviceId) => deviceStore(await deviceFor(deps, caller, deviceId, ['project key', 'member', 'self'], 'kv')),
  });
}
