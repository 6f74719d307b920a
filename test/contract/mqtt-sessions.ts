// MqttSessions contract (src/ports/mqtt-sessions.ts): which persistent MQTT sessions a device
// holds, which are offline since when, and which are past their lifetime. Memory and Redis.
import { describe, expect, it } from 'vitest';
import type { MqttSessions } from '../../src/ports/mqtt-sessions.js';

export type MqttSessionsFactory = () => Promise<{ sessions: MqttSessions; cleanup(): Promise<void> }>;

export function mqttSessionsContract(name: string, make: MqttSessionsFactory): void {
  describe(`MqttSessions contract: ${name}`, () => {
    const sorted = (l: { clientId: string; offlineSince: number | null }[]) => [...l].sort((a, b) => a.clientId.localeCompare(b.clientId));

    it('lists a device’s sessions, connected or offline since when; other devices apart', async () => {
      const { sessions: s, cleanup } = await make();
      try {
        await s.connected(1, '1/a', 'c1');
        await s.connected(2, '2/z', 'c9');
        await s.disconnected(1, '1/a', 'c1', 1000);
        expect(sorted(await s.connected(1, '1/b', 'c2'))).toEqual([
          { clientId: '1/a', offlineSince: 1000 },
          { clientId: '1/b', offlineSince: null },
        ]);
        await s.remove(1, '1/a');
        expect(await s.connected(1, '1/b', 'c3')).toEqual([{ clientId: '1/b', offlineSince: null }]);
      } finally {
        await cleanup();
      }
    });

    it('only the connection that took a session marks it offline (a takeover is not undone)', async () => {
      const { sessions: s, cleanup } = await make();
      try {
        await s.connected(1, '1/a', 'old');
        await s.connected(1, '1/a', 'new');
        await s.disconnected(1, '1/a', 'old', 500);
        expect(await s.connected(1, '1/x', 'x')).toContainEqual({ clientId: '1/a', offlineSince: null });
        expect(await s.expired(10_000, 10)).toEqual([]);
      } finally {
        await cleanup();
      }
    });

    it('answers the sessions offline since before a time, oldest first, at most the limit', async () => {
      const { sessions: s, cleanup } = await make();
      try {
        for (const [d, id, at] of [
          [1, '1/a', 300],
          [2, '2/b', 100],
          [3, '3/c', 200],
          [3, '3/late', 5000],
        ] as const) {
          await s.connected(d, id, `t${id}`);
          await s.disconnected(d, id, `t${id}`, at);
        }
        await s.connected(4, '4/live', 'l');
        expect(await s.expired(1000, 10)).toEqual([
          { deviceId: 2, clientId: '2/b' },
          { deviceId: 3, clientId: '3/c' },
          { deviceId: 1, clientId: '1/a' },
        ]);
        expect(await s.expired(1000, 1)).toEqual([{ deviceId: 2, clientId: '2/b' }]);
        // connecting again takes a session out of the offline ones
        await s.connected(2, '2/b', 'again');
        expect(await s.expired(1000, 10)).toEqual([
          { deviceId: 3, clientId: '3/c' },
          { deviceId: 1, clientId: '1/a' },
        ]);
      } finally {
        await cleanup();
      }
    });
  });
}
