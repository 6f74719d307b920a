// In-process Bus: an EventEmitter. Handlers run on a later turn of the microtask queue so a
// publisher never runs subscriber code synchronously (same ordering guarantees as the Redis adapter).
import { EventEmitter } from 'node:events';
import { PUBLISHED, type Bus } from '../../ports/bus.js';

export function createLocalBus(): Bus {
  const ee = new EventEmitter();
  ee.setMaxListeners(0);
  // Messages waiting for their handlers, topic and message in turn, all run by one microtask: a
  // queueMicrotask per message cost an AsyncResource, a bound function and a closure, about 250
  // bytes of garbage per event a browser stream watches (issue #26). The order is the publishes',
  // across topics too; a message a handler publishes waits for the next run.
  let pending: unknown[] = [];
  const run = () => {
    const batch = pending;
    pending = [];
    for (let i = 0; i < batch.length; i += 2) ee.emit(batch[i] as string, batch[i + 1]);
  };
  return {
    publish(topic, msg) {
      // nobody listening (an event of a connect storm with no browser watching): nothing to schedule
      if (ee.listenerCount(topic) === 0) return PUBLISHED;
      // subscribers share the message object: they must treat it as read-only
      if (pending.length === 0) queueMicrotask(run);
      pending.push(topic, msg);
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
