// In-process Presence: device id → its live connection ids.
import type { Presence } from '../../ports/presence.js';

export function createLocalPresence(): Presence {
  const live = new Map<number, Set<string>>();
  return {
    async connected(deviceId, connectionId) {
      let s = live.get(deviceId);
      if (!s) live.set(deviceId, (s = new Set()));
      if (s.has(connectionId)) return false;
      s.add(connectionId);
      return s.size === 1;
    },
    async disconnected(deviceId, connectionId) {
      const s = live.get(deviceId);
      if (!s || !s.delete(connectionId)) return false;
      if (s.size) return false;
      live.delete(deviceId);
      return true;
    },
    async count(deviceId) {
      return live.get(deviceId)?.size ?? 0;
    },
    async close() {
      live.clear();
    },
  };
}
