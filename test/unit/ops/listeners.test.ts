// The listeners before and after the roles exist (src/listeners): bound first, they answer HTTP
// with 503 SERVICE_UNAVAILABLE and hold MQTT connections unread until serve() hands them over;
// what a device sent meanwhile is not lost. A listener that cannot bind closes the others.
// The connect deadline stops for an MQTT socket whose CONNECT arrived (received), and a socket
// signed in (admit) keeps nothing of the gate.
import { connect, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import type { Config } from '../../../src/config/schema.js';
import { bindListeners } from '../../../src/listeners/index.js';
import { MIN_WAIT_MS } from '../../helpers/wait.js';

const logger = pino({ level: 'silent' });
const config = (over: Partial<Config> = {}): Config => {
  const base = loadConfig({});
  return { ...base, host: '127.0.0.1', http: { ...base.http, port: 0 }, mqtt: { ...base.mqtt, port: 0 }, ...over };
};

/** n raw TCP connections to the MQTT port, read and thrown away, destroyed when the test ends */
function openDevices(port: number, n: number): Socket[] {
  return Array.from({ length: n }, () => {
    const d = connect(port, '127.0.0.1');
    onTestFinished(() => void d.destroy());
    d.resume();
    return d;
  });
}

describe('listeners', () => {
  it('answer 503 and hold MQTT connections until the roles are served, then hand them over', async () => {
    const l = await bindListeners(config(), { broker: true, logger });
    onTestFinished(() => l.close());
    expect(l.ports.http).toBeGreaterThan(0);
    expect(l.ports.mqtt).toBeGreaterThan(0);
    expect([l.ports.https, l.ports.mqtts]).toEqual([0, 0]);

    const early = await fetch(`http://127.0.0.1:${l.ports.http}/healthz`);
    expect(early.status).toBe(503);
    expect(early.headers.get('retry-after')).toBe('1');
    expect(await early.json()).toMatchObject({ reason: 'SERVICE_UNAVAILABLE' });

    // a device that connects and sends before the broker exists
    const device: Socket = connect(l.ports.mqtt, '127.0.0.1');
    onTestFinished(() => void device.destroy());
    await once(device, 'connect');
    device.write('hello before serve');

    const received: string[] = [];
    const gotData = new Promise<void>((resolve) => {
      l.serve({
        request: (_req, res) => res.end('served'),
        mqtt: (socket) => socket.on('data', (d) => (received.push(d.toString()), resolve())),
      });
    });
    await gotData;
    expect(received.join('')).toBe('hello before serve');
    expect(await (await fetch(`http://127.0.0.1:${l.ports.http}/healthz`)).text()).toBe('served');
  });

  it('connections held before serve meet admission control when handed over, not while the node starts', async () => {
    const base = config();
    const l = await bindListeners({ ...base, limits: { ...base.limits, connectRatePerSecond: 2 } }, { broker: true, logger });
    onTestFinished(() => l.close());
    const devices = openDevices(l.ports.mqtt, 6);
    await Promise.all(devices.map((d) => once(d, 'connect')));
    // a request to the same process, answered after it accepted the six (positive control)
    expect((await fetch(`http://127.0.0.1:${l.ports.http}/healthz`)).status).toBe(503);
    // nothing passed the rate into the start-up hold
    expect(l.admission()).toEqual([{ listener: 'MQTT', passed: 0, held: 0, waiting: 0, inFlight: 0 }]);

    let handed = 0;
    const all = new Promise<void>((resolve) => {
      l.serve({
        request: (_req, res) => res.end('served'),
        mqtt: () => void (++handed === devices.length && resolve()),
      });
    });
    await all;
    // two tokens at once, the other four waited for the rate; none has had its CONNACK
    expect(l.admission()).toEqual([{ listener: 'MQTT', passed: 6, held: 4, waiting: 0, inFlight: 6 }]);
  });

  it('at most limits.connectsInFlight connections wait for their CONNACK; the next is passed on when one gets it or closes', async () => {
    const base = config();
    const l = await bindListeners({ ...base, limits: { ...base.limits, connectRatePerSecond: 0, connectsInFlight: 2 } }, { broker: true, logger });
    onTestFinished(() => l.close());
    const handed: Socket[] = [];
    l.serve({ request: (_req, res) => res.end('served'), mqtt: (socket) => void handed.push(socket) });
    const devices = openDevices(l.ports.mqtt, 5);
    // all five accepted: two passed on, three wait (the positive control of "no more than two")
    await expect.poll(() => l.admission()[0], { timeout: MIN_WAIT_MS }).toEqual({ listener: 'MQTT', passed: 2, held: 3, waiting: 3, inFlight: 2 });
    expect(handed).toHaveLength(2);
    // a CONNACK (the broker admits the socket): the next one is passed on
    l.admit(handed[0]);
    await expect.poll(() => handed.length, { timeout: MIN_WAIT_MS }).toBe(3);
    expect(l.admission()[0]).toMatchObject({ passed: 3, waiting: 2, inFlight: 2 });
    // a connection in flight closes (the device gave up): the next one too
    devices.find((d) => d.localPort === handed[1].remotePort)!.destroy();
    await expect.poll(() => handed.length, { timeout: MIN_WAIT_MS }).toBe(4);
    // the one passed on gets its CONNACK, the last one follows; none was refused
    l.admit(handed[2]);
    l.admit(handed[3]);
    await expect.poll(() => handed.length, { timeout: MIN_WAIT_MS }).toBe(5);
    expect(l.admission()[0]).toEqual({ listener: 'MQTT', passed: 5, held: 3, waiting: 0, inFlight: 1 });
    expect(devices.filter((d) => d.destroyed)).toHaveLength(1);
  });

  it('with the rate and the cap at 0, every connection is passed on at once', async () => {
    const base = config();
    const l = await bindListeners({ ...base, limits: { ...base.limits, connectRatePerSecond: 0, connectsInFlight: 0 } }, { broker: true, logger });
    onTestFinished(() => l.close());
    const handed: Socket[] = [];
    l.serve({ request: (_req, res) => res.end('served'), mqtt: (socket) => void handed.push(socket) });
    openDevices(l.ports.mqtt, 5);
    await expect.poll(() => handed.length, { timeout: MIN_WAIT_MS }).toBe(5);
    expect(l.admission()[0]).toEqual({ listener: 'MQTT', passed: 5, held: 0, waiting: 0, inFlight: 0 });
  });

  it("the connect deadline stops once a socket's CONNECT arrived; a socket signed in keeps no gate listener", async () => {
    const base = config();
    const l = await bindListeners({ ...base, limits: { ...base.limits, connectTimeoutMs: 300, connectRatePerSecond: 0 } }, { broker: true, logger });
    onTestFinished(() => l.close());
    const accepted: Socket[] = [];
    const twoAccepted = new Promise<void>((resolve) => {
      l.serve({
        request: (_req, res) => res.end('served'),
        mqtt: (socket) => {
          // the first one's CONNECT arrives at once (as the broker reports it), the other's never
          if (accepted.push(socket) === 1) l.received(socket);
          else resolve();
        },
      });
    });
    const devices = openDevices(l.ports.mqtt, 2);
    await twoAccepted;
    const [answering, silent] = accepted;
    const answeringDevice = devices.find((d) => d.localPort === answering.remotePort)!;
    const silentDevice = devices.find((d) => d.localPort === silent.remotePort)!;
    // the deadline still runs for the other (positive control): closed
    await once(silentDevice, 'close');
    expect(answeringDevice.destroyed).toBe(false);
    expect(answering.destroyed).toBe(false);
    // CONNACK 0: the gate lets go of the socket, its close listener included
    const listeners = answering.listenerCount('close');
    l.admit(answering);
    expect(answering.listenerCount('close')).toBe(listeners - 1);
  });

  it('an MQTT connection held while the node starts is not closed by the connect deadline', async () => {
    const base = config();
    const l = await bindListeners({ ...base, limits: { ...base.limits, connectTimeoutMs: 300 } }, { broker: true, logger });
    onTestFinished(() => l.close());
    const device = connect(l.ports.mqtt, '127.0.0.1');
    onTestFinished(() => void device.destroy());
    device.resume();
    await once(device, 'connect');
    // a silent HTTP socket accepted after it: its deadline runs (positive control), and once it
    // is closed the device's deadline has passed too
    const silent = connect(l.ports.http, '127.0.0.1');
    onTestFinished(() => void silent.destroy());
    silent.resume();
    await once(silent, 'close');
    expect(device.destroyed).toBe(false);
    const handed = new Promise<Socket>((resolve) => l.serve({ request: (_req, res) => res.end('served'), mqtt: resolve }));
    const socket = await handed;
    expect(socket.destroyed).toBe(false);
  });

  it('without the broker role, or with HEARTH_MQTT_ENABLED=false, no MQTT port is bound', async () => {
    const worker = await bindListeners(config(), { broker: false, logger });
    onTestFinished(() => worker.close());
    expect(worker.ports.mqtt).toBe(0);
    const off = await bindListeners(config({ mqtt: { ...loadConfig({}).mqtt, port: 0, enabled: false } }), { broker: true, logger });
    onTestFinished(() => off.close());
    expect(off.ports.mqtt).toBe(0);
    expect(off.ports.http).toBeGreaterThan(0);
  });

  it('a port that is taken is a ConfigError naming its variable, and the ports bound before it are released', async () => {
    const holder = createServer();
    holder.listen(0, '127.0.0.1');
    await once(holder, 'listening');
    onTestFinished(() => void holder.close());
    const busy = (holder.address() as { port: number }).port;
    // HTTP binds first, then MQTT: HTTP's port must be free again afterwards
    const httpPort = await new Promise<number>((r) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => r(p));
      });
    });
    const base = config();
    const err = await bindListeners({ ...base, http: { ...base.http, port: httpPort }, mqtt: { ...base.mqtt, port: busy } }, { broker: true, logger }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.name).toBe('ConfigError');
    expect(err?.message).toMatch(new RegExp(`^HEARTH_MQTT_PORT: port ${busy} on 127.0.0.1 is already in use`));
    const again = createServer();
    again.listen(httpPort, '127.0.0.1');
    await once(again, 'listening');
    await new Promise((r) => again.close(r));
  });
});
