// BoundedPersistence (broker/limits/bounded-persistence.ts) under a real Aedes, on a real socket, with
// MQTT.js clients: a clean session's connect and SUBSCRIBE read nothing from the in-memory store
// (issue #25), and what Aedes does with the empty source it gets instead is what the wrapper relies
// on (a `pipeline` over an iterable, a `.pipe`): an Aedes release that reads it another way fails here.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Aedes, type Client } from 'aedes';
import memoryPersistence from 'aedes-persistence';
import mqtt, { type MqttClient } from 'mqtt';
import { BoundedPersistence, EMPTY_SOURCE } from '../../../broker/limits/bounded-persistence.js';

type Inner = ConstructorParameters<typeof BoundedPersistence>[0];

const open: { aedes: Aedes; server: Server; clients: MqttClient[] }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    for (const c of o.clients) await c.endAsync(true);
    await new Promise<void>((r) => o.server.close(() => r()));
    await new Promise<void>((r) => o.aedes.close(() => r()));
  }
});

/** Aedes's in-memory persistence, counting the calls Aedes makes of each of its methods */
function countedMemory(): { inner: Inner; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const real = (memoryPersistence as unknown as () => Inner)();
  const inner = new Proxy(real, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { inner, calls };
}

/** a listening Aedes on `persistence` (what BoundedPersistence gives it, or a test's wrapper of that) */
async function broker(persistence: unknown) {
  const aedes = new Aedes({ persistence: persistence as never });
  await aedes.listen();
  const server = createServer(aedes.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const o = { aedes, server, clients: [] as MqttClient[] };
  open.push(o);
  const connect = async (clientId: string, clean: boolean) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`, { clientId, clean, reconnectPeriod: 0 });
    o.clients.push(c);
    return c;
  };
  return { aedes, connect };
}

/** resolves when Aedes has run every step of the client's connect (its last: reading the queue) */
function ready(aedes: Aedes, clientId: string): Promise<void> {
  return new Promise((resolve) => {
    const on = (client: Client) => {
      if (client.id !== clientId) return;
      aedes.off('clientReady', on);
      resolve();
    };
    aedes.on('clientReady', on);
  });
}

describe('BoundedPersistence under Aedes', () => {
  it("a clean session's connect and SUBSCRIBE read nothing from the in-memory store, and the connect completes", async () => {
    const { inner, calls } = countedMemory();
    const bp = new BoundedPersistence(inner, () => undefined, true);
    const { aedes, connect } = await broker(bp.aedes);
    const up = ready(aedes, 'clean-1');
    const c = await connect('clean-1', true);
    await up;
    const granted = await c.subscribeAsync(['a/1', 'a/2'], { qos: 1 });
    expect(granted.map((g) => g.qos)).toEqual([1, 1]);
    expect(calls.get('outgoingStream') ?? 0).toBe(0);
    expect(calls.get('createRetainedStreamCombi') ?? 0).toBe(0);
    // the connection works after it: a QoS 1 publish reaches it
    const got = new Promise<string>((r) => c.once('message', (_t, p) => r(p.toString())));
    aedes.publish({ cmd: 'publish', topic: 'a/1', payload: Buffer.from('x'), qos: 1, retain: false, dup: false }, () => {});
    expect(await got).toBe('x');
  });

  it("Aedes reads the empty source only by iterating it (the connect's queue) and piping it (a SUBSCRIBE's retained messages)", async () => {
    const { inner } = countedMemory();
    const bp = new BoundedPersistence(inner, () => undefined, true);
    // EMPTY_SOURCE (a copy: a proxy of a frozen object must answer its own values), recording which
    // of its functions Aedes calls, from where
    const used: string[] = [];
    const recorded = (where: string) =>
      new Proxy(Object.assign([], { pipe: EMPTY_SOURCE.pipe }), {
        get(target, prop, receiver) {
          const v = Reflect.get(target, prop, receiver) as unknown;
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            used.push(`${where} ${String(prop)}`);
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    const wrapped = new Proxy(bp.aedes as Record<string | symbol, unknown>, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop === 'outgoingStream' || prop === 'createRetainedStreamCombi') {
          return (...args: unknown[]) => {
            const r = (v as (...a: unknown[]) => unknown)(...args);
            return r === EMPTY_SOURCE ? recorded(prop) : r;
          };
        }
        return v;
      },
    });
    const { aedes, connect } = await broker(wrapped);
    const up = ready(aedes, 'clean-2');
    const c = await connect('clean-2', true);
    await up;
    await c.subscribeAsync('b/1', { qos: 1 });
    // the SUBACK is written before the retained lookup: a second SUBSCRIBE's SUBACK follows it
    await c.subscribeAsync('b/2', { qos: 0 });
    expect(used).toEqual(['outgoingStream Symbol(Symbol.iterator)', 'createRetainedStreamCombi pipe', 'createRetainedStreamCombi pipe']);
  });

  it("a persistent session's queue is still read at its reconnect, and a clean session's queue under the same id cleared", async () => {
    const { inner, calls } = countedMemory();
    const bp = new BoundedPersistence(inner, () => undefined, true);
    const { aedes, connect } = await broker(bp.aedes);
    const first = await connect('kept', false);
    await first.subscribeAsync('q/1', { qos: 1 });
    // a persistent session's queue is read even when this node counted none queued
    expect(calls.get('outgoingStream')).toBe(1);
    await first.endAsync();
    await new Promise<void>((r) =>
      aedes.publish({ cmd: 'publish', topic: 'q/1', payload: Buffer.from('queued'), qos: 1, retain: false, dup: false }, () => r()),
    );
    expect(bp.queuedOf('kept')).toBe(1);
    // back as a persistent session: the queued packet arrives
    const again = mqtt.connect(`mqtt://127.0.0.1:${(open[0].server.address() as AddressInfo).port}`, { clientId: 'kept', clean: false, reconnectPeriod: 0 });
    open[0].clients.push(again);
    expect(await new Promise<string>((r) => again.once('message', (_t, p) => r(p.toString())))).toBe('queued');
    expect(calls.get('outgoingStream')).toBe(2);
    await again.endAsync();
    // queue another, then come back clean: Aedes clears it (its connect's last step) instead of sending it
    await new Promise<void>((r) =>
      aedes.publish({ cmd: 'publish', topic: 'q/1', payload: Buffer.from('dropped'), qos: 1, retain: false, dup: false }, () => r()),
    );
    expect(bp.queuedOf('kept')).toBe(1);
    const up = ready(aedes, 'kept');
    await connect('kept', true);
    await up;
    expect(calls.get('outgoingStream')).toBe(3);
    expect(bp.queuedOf('kept')).toBe(0);
  });
});
