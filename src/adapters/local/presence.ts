// In-process Presence: device id → its live connection ids. Most devices hold one connection:
// its id alone is kept, a Set only for a device with several (memory per device at fleet size).
import type { Presence } from '../../ports/presence.js';

export function createLocalPresence(): Presence {
  const live = new Map<number, string | Set<string>>();
  return {
    async connected(deviceId, connectionId) {
      const cur = live.get(deviceId);
      if (cur === undefined) {
        live.set(deviceId, connectionId);
        return true;
      }
      if (typeof cur === 'string') {
        if (cur !== connectionId) live.set(deviceId, new Set([cur, connectionId]));
      } else cur.add(connectionId);
      return false;
    },
    async disconnected(deviceId, connectionId) {
      const cur = live.get(deviceId);
      if (cur === undefined) return false;
      if (typeof cur === 'string') {
        if (cur !== connectionId) return false;
        live.delete(deviceId);
        return true;
      }
      if (!cur.delete(connectionId)) return false;
      // one left: back to its id alone (a Set never holds fewer than two)
      if (cur.size === 1) live.set(deviceId, cur.values().next().value!);
      return false;
    },
    count(deviceId) {
      const cur = live.get(deviceId);
      return cur === undefined ? 0 : typeof cur === 'string' ? 1 : cur.size;
    },
    async close() {
      live.clear();
    },
  };
}
