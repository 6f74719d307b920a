// MqttSessions in memory (embedded mode: one broker, Aedes's persistence in the same process).
// Memory follows the sessions: the broker bounds them per device and removes the expired.
import type { MqttSessionEntry, MqttSessions } from '../../ports/mqtt-sessions.js';

/** a session: the connection holding it, or the time it went offline */
type State = { token: string } | { offlineSince: number };

export function createLocalMqttSessions(): MqttSessions {
  const byDevice = new Map<number, Map<string, State>>();
  const entries = (m: Map<string, State>): MqttSessionEntry[] =>
    [...m].map(([clientId, s]) => ({ clientId, offlineSince: 'token' in s ? null : s.offlineSince }));
  return {
    async connected(deviceId, clientId, token) {
      let m = byDevice.get(deviceId);
      if (!m) byDevice.set(deviceId, (m = new Map()));
      m.set(clientId, { token });
      return entries(m);
    },
    async disconnected(deviceId, clientId, token, at) {
      const m = byDevice.get(deviceId);
      const s = m?.get(clientId);
      if (m && s && 'token' in s && s.token === token) m.set(clientId, { offlineSince: at });
    },
    async remove(deviceId, clientId) {
      const m = byDevice.get(deviceId);
      if (!m) return;
      m.delete(clientId);
      if (!m.size) byDevice.delete(deviceId);
    },
    async expired(before, limit) {
      const out: { deviceId: number; clientId: string; at: number }[] = [];
      for (const [deviceId, m] of byDevice) {
        for (const [clientId, s] of m) if ('offlineSince' in s && s.offlineSince < before) out.push({ deviceId, clientId, at: s.offlineSince });
      }
      return out
        .sort((a, b) => a.at - b.at)
        .slice(0, limit)
        .map(({ deviceId, clientId }) => ({ deviceId, clientId }));
    },
  };
}
