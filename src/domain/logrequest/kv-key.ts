// How the device learns of its log request (docs/concepts.md#log-requests): the service-held key `sys:logRequest` of
// its KV store holds `{id, token, start, end, prefixes}` while the request is open, so a device
// that is offline finds it in the `reload` of its next connection. The key changes in the same
// transaction as the request itself, so the two never disagree.
//
// The sync messages go to the device as for any KV change (docs/devices.md#kv-sync), but the system event that
// every change emits (_deviceKVSaved_) carries the value with the token removed: events reach
// the events history and external webhook receivers, and the token is an upload credential.
import type { Deps, EmitDeps } from '../deps.js';
import type { DeviceRow, LogRequestRow, Store } from '../../ports/store.js';
import type { KvSyncMessage } from '../../ports/bus.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';
import { asLimitExceeded } from '../kv/limit.js';

export const LOG_REQUEST_KEY = 'sys:logRequest';

export interface LogRequestKeyValue {
  id: string;
  token: string;
  start: string | null;
  end: string | null;
  prefixes: string[];
}

export const keyValueOf = (r: LogRequestRow, token: string): LogRequestKeyValue => ({
  id: r.id,
  token,
  start: r.start,
  end: r.end,
  prefixes: r.prefixes ?? [],
});

type Device = Pick<DeviceRow, 'id' | 'projectId' | 'deviceClass' | 'homeId'>;

/** writes the key inside the caller's transaction; room for it is kept even in a full store */
export async function setKeyIn(tx: Pick<Store, 'kv'>, deps: Pick<Deps, 'limits'>, deviceId: number, value: LogRequestKeyValue, now: string): Promise<number> {
  const { rev } = await tx.kv.set('device', deviceId, LOG_REQUEST_KEY, value, now, deps.limits.kvKeysPerStore + 1).catch(asLimitExceeded);
  return rev;
}

/** removes the key inside the caller's transaction, only if it still names this request */
export async function clearKeyIn(tx: Pick<Store, 'kv'>, deviceId: number, requestId: string): Promise<number | undefined> {
  const cur = await tx.kv.get('device', deviceId, LOG_REQUEST_KEY);
  if (!cur || (cur.value as { id?: unknown } | null)?.id !== requestId) return undefined;
  return (await tx.kv.delete('device', deviceId, LOG_REQUEST_KEY))?.rev;
}

/** after the commit: the sync message to the device's live connections, and the system event */
export async function announceKey(deps: EmitDeps, device: Device, rev: number, value?: LogRequestKeyValue): Promise<void> {
  const message: KvSyncMessage = value ? { action: 'set', rev, key: LOG_REQUEST_KEY, value } : { action: 'delete', rev, key: LOG_REQUEST_KEY };
  await deps.bus.publish('kv', { scope: 'device', ownerId: device.id, message });
  const eventData: Record<string, unknown> = { key: LOG_REQUEST_KEY };
  if (value) eventData.value = { ...value, token: '[redacted]' };
  const type = value ? '_deviceKVSaved_' : '_deviceKVDeleted_';
  await emitEvent(deps, { projectId: device.projectId, event: deviceSystemEvent(device, type, eventData, deps.ids.timestamp(deps.clock.now())) });
}
