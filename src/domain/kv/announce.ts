// After every change: the sync message to live subscribers (bus `kv`) and the system event
// (docs/devices.md#kv-sync: _deviceKVSaved_ / _deviceKVDeleted_ for devices, _keyValueSaved_ / _keyValueDeleted_
// for homes).
import type { EmitDeps } from '../deps.js';
import type { EventRecord } from '../../ports/store.js';
import type { KvSyncMessage } from '../../ports/bus.js';
import { deviceSystemEvent, emitEvent } from '../event/emit.js';
import type { KvTarget } from './target.js';

export async function announceKvChange(deps: EmitDeps, target: KvTarget, message: KvSyncMessage & { action: 'set' | 'delete' }): Promise<void> {
  await deps.bus.publish('kv', { scope: target.scope, ownerId: target.ownerId, message });
  const now = deps.clock.now();
  const saved = message.action === 'set';
  const eventData: Record<string, unknown> = saved ? { key: message.key, value: message.value } : { key: message.key };
  let event: EventRecord;
  if (target.scope === 'device') {
    event = deviceSystemEvent(target.device, saved ? '_deviceKVSaved_' : '_deviceKVDeleted_', eventData, deps.ids.timestamp(now));
  } else {
    event = { eventType: saved ? '_keyValueSaved_' : '_keyValueDeleted_', eventData, timestamp: now.toISOString(), homeId: target.ownerId };
  }
  await emitEvent(deps, { projectId: target.projectId, event });
}
