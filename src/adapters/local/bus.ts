// In-process Bus: an EventEmitter. Handlers run on the next tick so a publisher never runs
// subscriber code synchronously (same ordering guarantees as the Redis adapter).
import { EventEmitter } from 'node:events';
import type { Bus } from '../../ports/bus.js';

/** what every publish answers: it has nothing to wait for, and a promise of its own per event was garbage (issue #26) */
const PUBLISHED: Promise<void> = Promise.resolve();

export function createLocalBus(): Bus {
  const ee = new EventEmitter();
  ee.setMaxListeners(0);
  return {
    publish(topic, msg) {
      // nobody listening (an event of a connect storm with no browser watching): nothing to schedule
      if (ee.listenerCount(topic) === 0) return PUBLISHED;
      // subscribers share the message object: they must treat it as read-only
      queueMicrotask(() => ee.emit(topic, msg));
      return PUBLISHED;
    },
    subscribe(topic, handler) {
      const h = (m: any) => {
        try {
          handler(m);
        } catch {
          // a failing subscriber must not break the others
        }
      };
      ee.on(topic, h);
      return () => ee.off(topic, h);
    },
    async ready() {},
    async close() {
      ee.removeAllListeners();
    },
  };
}
