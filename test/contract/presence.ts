// Presence contract: every adapter counts a device's live connections the same way.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Presence } from '../../src/ports/presence.js';

export type PresenceFactory = () => Promise<{ presence: Presence; cleanup(): Promise<void> }>;

export function presenceContract(name: string, make: PresenceFactory): void {
  const fresh = async () => {
    const f = await make();
    onTestFinished(() => f.cleanup());
    return f.presence;
  };

  describe(`Presence contract: ${name}`, () => {
    it('reports the first connection and the last disconnection of a device', async () => {
      const p = await fresh();
      expect(await p.connected(1, 'a')).toBe(true);
      expect(await p.connected(1, 'b')).toBe(false);
      expect(await p.count(1)).toBe(2);
      expect(await p.disconnected(1, 'a')).toBe(false);
      expect(await p.count(1)).toBe(1);
      expect(await p.disconnected(1, 'b')).toBe(true);
      expect(await p.count(1)).toBe(0);
    });

    it('ignores an unknown or repeated disconnection', async () => {
      const p = await fresh();
      expect(await p.disconnected(2, 'never')).toBe(false);
      await p.connected(2, 'x');
      expect(await p.disconnected(2, 'x')).toBe(true);
      expect(await p.disconnected(2, 'x')).toBe(false);
      expect(await p.count(2)).toBe(0);
    });

    it('keeps devices apart', async () => {
      const p = await fresh();
      await p.connected(3, 'c');
      await p.connected(4, 'c');
      expect(await p.disconnected(3, 'c')).toBe(true);
      expect(await p.count(4)).toBe(1);
    });

    it('counts a connection id reported twice once', async () => {
      const p = await fresh();
      expect(await p.connected(5, 'same')).toBe(true);
      expect(await p.connected(5, 'same')).toBe(false);
      expect(await p.count(5)).toBe(1);
      expect(await p.disconnected(5, 'same')).toBe(true);
    });

    it('stays consistent under concurrent connects and disconnects', async () => {
      const p = await fresh();
      const firsts = await Promise.all(Array.from({ length: 20 }, (_, i) => p.connected(6, `c${i}`)));
      expect(firsts.filter(Boolean)).toHaveLength(1);
      const lasts = await Promise.all(Array.from({ length: 20 }, (_, i) => p.disconnected(6, `c${i}`)));
      expect(lasts.filter(Boolean)).toHaveLength(1);
      expect(await p.count(6)).toBe(0);
    });
  });
}
