// This node's KV watchers (sockets/kv.ts opens them, deliver.ts feeds them): per device, the sockets
// to send each change to, holding back changes until the first `reload` went out
// (docs/devices.md#kv-sync).
import type { WebSocket } from 'ws';
import type { Caller } from '../../src/domain/caller.js';
import type { PresenceDevice } from '../../src/domain/presence/index.js';
import type { KvSyncMessage } from '../../src/ports/bus.js';
import type { BrokerCore } from '../core.js';
import { closeWebSocket } from '../connections.js';
import { sendText } from './send.js';

export interface KvWatcher {
  ws: WebSocket;
  deviceId: number;
  projectId: number;
  device: PresenceDevice;
  caller: Caller;
  /** signed in with a registered client certificate: its fingerprint (revoking it closes this socket) */
  certificate?: string;
  /** changes that arrived before the first `reload` went out; null once it has */
  pending: KvSyncMessage[] | null;
  /** a `reload` is being built or written ('busy'), and another was asked meanwhile ('again'): sockets/kv.ts */
  reload?: 'busy' | 'again';
}

export class KvWatchers {
  private readonly byDevice = new Map<number, Set<KvWatcher>>();

  add(k: KvWatcher): void {
    let set = this.byDevice.get(k.deviceId);
    if (!set) this.byDevice.set(k.deviceId, (set = new Set()));
    set.add(k);
  }

  remove(k: KvWatcher): void {
    const set = this.byDevice.get(k.deviceId);
    if (set?.delete(k) && !set.size) this.byDevice.delete(k.deviceId);
  }

  deliver(ctx: BrokerCore, deviceId: number, message: KvSyncMessage): void {
    const set = this.byDevice.get(deviceId);
    if (!set) return;
    const text = JSON.stringify(message);
    for (const k of set) {
      if (k.pending) k.pending.push(message);
      else {
        sendText(ctx, k.ws, text);
        ctx.metrics.kvSyncs.websocket++;
      }
    }
  }

  /** revocations: the sockets opened with a credential that is no longer valid */
  closeWhere(pred: (k: KvWatcher) => boolean): void {
    for (const set of this.byDevice.values()) for (const k of set) if (pred(k)) closeWebSocket(k.ws, 1008, 'credential revoked');
  }
}
