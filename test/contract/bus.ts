// Bus contract: every adapter (in-process, Redis) passes the same behaviour.
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Bus, BusMessages } from '../../src/ports/bus.js';

export type BusFactory = () => Promise<{ bus: Bus; cleanup(): Promise<void> }>;

// a wait for a delivery; the deadline only bounds a failure, generous for a busy machine
const until = async (cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 5));
  }
};

export function busContract(name: string, make: BusFactory): void {
  const fresh = async () => {
    const f = await make();
    onTestFinished(() => f.cleanup());
    return f.bus;
  };
  const cmd = (deviceId: number): BusMessages['command'] => ({ deviceId, command: { action: 'go', parameters: { n: deviceId } } });

  describe(`Bus contract: ${name}`, () => {
    it('delivers messages of a topic to its subscriber in publish order, as sent', async () => {
      const bus = await fresh();
      const got: BusMessages['command'][] = [];
      bus.subscribe('command', (m) => got.push(m));
      await bus.ready?.();
      for (let i = 1; i <= 50; i++) await bus.publish('command', cmd(i));
      await until(() => got.length === 50);
      expect(got.map((m) => m.deviceId)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(got[6]).toEqual(cmd(7));
    });

    it('keeps topics apart', async () => {
      const bus = await fresh();
      const events: unknown[] = [];
      const commands: unknown[] = [];
      bus.subscribe('event', (m) => events.push(m));
      bus.subscribe('command', (m) => commands.push(m));
      await bus.ready?.();
      await bus.publish('command', cmd(1));
      await until(() => commands.length === 1);
      // positive control: an event published after the command reaches the event subscriber; the
      // command, had it crossed over, would have come first
      const control = { projectId: 1, deviceId: 1, event: { eventType: 'control' } } as never;
      await bus.publish('event', control);
      await until(() => events.length > 0);
      expect(events).toEqual([control]);
      expect(commands).toEqual([cmd(1)]);
    });

    it('delivers to every subscriber, even when one of them throws', async () => {
      const bus = await fresh();
      const a: unknown[] = [];
      const b: unknown[] = [];
      bus.subscribe('revoke', (m) => a.push(m));
      bus.subscribe('revoke', () => {
        throw new Error('subscriber bug');
      });
      bus.subscribe('revoke', (m) => b.push(m));
      await bus.ready?.();
      await bus.publish('revoke', { kind: 'device', deviceId: 9 });
      await bus.publish('revoke', { kind: 'projectKey', keyId: 'k1' });
      await until(() => a.length === 2 && b.length === 2);
      expect(b).toEqual([
        { kind: 'device', deviceId: 9 },
        { kind: 'projectKey', keyId: 'k1' },
      ]);
    });

    it('stops delivering after unsubscribe', async () => {
      const bus = await fresh();
      const got: unknown[] = [];
      const keep: unknown[] = [];
      const off = bus.subscribe('work', (m) => got.push(m));
      bus.subscribe('work', (m) => keep.push(m));
      await bus.ready?.();
      await bus.publish('work', { queue: 'a' });
      await until(() => got.length === 1);
      off();
      await bus.publish('work', { queue: 'b' });
      await until(() => keep.length === 2);
      expect(got).toEqual([{ queue: 'a' }]);
    });

    it('delivers again to a subscriber that comes after the last one left', async () => {
      const bus = await fresh();
      const first: unknown[] = [];
      const off = bus.subscribe('event', (m) => first.push(m));
      await bus.ready?.();
      off();
      // published while nobody listens (at most once: a later subscriber may or may not get it)
      await bus.publish('event', { projectId: 1, deviceId: 1, event: { eventType: 'between' } } as never);
      const again: { event: { eventType: string } }[] = [];
      bus.subscribe('event', (m) => again.push(m as never));
      await bus.ready?.();
      await bus.publish('event', { projectId: 1, deviceId: 1, event: { eventType: 'heard' } } as never);
      // every subscriber of a message is called in the same dispatch: once `again` has it, a
      // subscriber that had not really left would have it too
      await until(() => again.some((m) => m.event.eventType === 'heard'));
      expect(first).toEqual([]);
      expect(again.filter((m) => m.event.eventType === 'heard')).toHaveLength(1);
    });

    it('runs no handler inside a publish, and keeps the order of publishes across topics', async () => {
      const bus = await fresh();
      const got: string[] = [];
      bus.subscribe('work', (m) => got.push(`work ${m.queue}`));
      bus.subscribe('modules', (m) => got.push(`modules ${m.projectId}`));
      await bus.ready?.();
      const sent = [bus.publish('work', { queue: 'a' }), bus.publish('modules', { projectId: 1 }), bus.publish('work', { queue: 'b' })];
      // the publisher's own code goes on before any subscriber's (the in-process bus runs a turn's
      // messages together, later)
      expect(got).toEqual([]);
      await Promise.all(sent);
      await until(() => got.length === 3);
      expect(got).toEqual(['work a', 'modules 1', 'work b']);
    });

    it('delivers what a handler publishes after the messages already published', async () => {
      const bus = await fresh();
      const got: string[] = [];
      bus.subscribe('work', (m) => {
        got.push(`work ${m.queue}`);
        if (m.queue === 'a') void bus.publish('modules', { projectId: 2 });
      });
      bus.subscribe('modules', (m) => got.push(`modules ${m.projectId}`));
      await bus.ready?.();
      await Promise.all([bus.publish('work', { queue: 'a' }), bus.publish('work', { queue: 'b' })]);
      await until(() => got.length === 3);
      expect(got).toEqual(['work a', 'work b', 'modules 2']);
    });

    it('carries nested JSON values unchanged', async () => {
      const bus = await fresh();
      const got: BusMessages['kv'][] = [];
      bus.subscribe('kv', (m) => got.push(m));
      await bus.ready?.();
      const msg: BusMessages['kv'] = { scope: 'device', ownerId: 3, message: { action: 'set', rev: 7, key: 'k', value: { a: [1, 'ü', true, { b: null }] } } };
      await bus.publish('kv', msg);
      await until(() => got.length === 1);
      expect(got[0]).toEqual(msg);
    });
  });
}
