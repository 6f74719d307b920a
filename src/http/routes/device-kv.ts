// Device key-value store (docs/api.md#device-operations getKeyValuePairsReceiveUpdates, lookUpKeyValuePair,
// createUpdateKeyValuePair, deleteKeyValuePair; docs/devices.md#kv-sync). Mounted at /devices (see index.ts).
// Callers: a project key with scope `kv`, a member of the device's home, the device itself.
// The live WebSocket on GET /devices/{id}/kv is the broker's: upgrades never reach Hono.
import type { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { deviceFor } from '../../domain/auth/access.js';
import { deviceStore } from '../../domain/kv/index.js';
import { kvRoutes } from './kv-routes.js';

export function device_kvRoutes(): Hono<HttpEnv> {
  return kvRoutes({
    param: 'deviceId',
    notFound: 'DEVICE_NOT_FOUND',
    tag: 'device key-value',
    ids: { list: 'getKeyValuePairsReceiveUpdates', get: 'lookUpKeyValuePair', put: 'createUpdateKeyValuePair', delete: 'deleteKeyValuePair' },
    of: 'a device',
    auth: {
      read: 'a project key with scope kv, a member of the device home, the device itself',
      write: 'a project key with scope kv, a member of the device home, the device itself',
    },
    // the same three kinds of caller read and write (docs/concepts.md#devices table)
    resolve: async (deps, caller, deviceId) => deviceStore(await deviceFor(deps, caller, deviceId, ['project key', 'member', 'self'], 'kv')),
  });
}
