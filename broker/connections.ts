// The live device connections of this node (MQTT and command WebSocket) and their presence.
// Presence changes of one device run one after another, so isConnected and the connect /
// disconnect times stay exact however connections of a device overlap (several at once, a
// takeover that opens the new before the old closes, a revocation closing them all).
import type { WebSocket } from 'ws';
import { deviceConnected, deviceDisconnected } from '../src/domain/presence/index.js';
import type { BrokerDeps } from './deps.js';
import type { DeviceSession, MqttClientLike } from './session.js';
import type { BrokerMetrics } from './metrics.js';

export class NodeConnections {
  /**
   * device id → its live session on this node, or its sessions when it holds more than one: most
   * devices hold one, and a list of one cost 56 bytes a device beside the entry (issue #25)
   */
  private readonly byDevice = new Map<number, DeviceSession | DeviceSession[]>();
  /** device id → the tail of its presence changes */
  private readonly chains = new Map<number, Promise<void>>();

  constructor(
    private readonly deps: BrokerDeps,
    private readonly metrics: BrokerMetrics,
  ) {}

  get size(): number {
    let n = 0;
    for (const held of this.byDevice.values()) n += Array.isArray(held) ? held.length : 1;
    return n;
  }

  sessionsOf(deviceId: number): readonly DeviceSession[] {
    const held = this.byDevice.get(deviceId);
    return held === undefined ? [] : Array.isArray(held) ? held : [held];
  }

  attach(s: DeviceSession): Promise<void> {
    const held = this.byDevice.get(s.device.id);
    if (held === undefined) this.byDevice.set(s.device.id, s);
    else if (Array.isArray(held)) held.push(s);
    else this.byDevice.set(s.device.id, [held, s]);
    this.metrics.connects[s.transport]++;
    this.metrics.connected[s.transport]++;
    const { logger } = this.deps;
    if (logger.isLevelEnabled('debug'))
      logger.debug({ deviceId: s.device.id, transport: s.transport, ip: s.ip }, `device ${s.device.id} connected (${s.transport})`);
    return this.inOrder(s.device.id, () =>
      deviceConnected({ deps: this.deps, input: { device: s.device, connectionId: s.connectionId, transport: s.transport } }),
    );
  }

  /** idempotent: a connection may report its end more than once */
  detach(s: DeviceSession): Promise<void> {
    const held = this.byDevice.get(s.device.id);
    if (held === s) this.byDevice.delete(s.device.id);
    else {
      const i = Array.isArray(held) ? held.indexOf(s) : -1;
      if (i < 0) return Promise.resolve();
      const list = held as DeviceSession[];
      list.splice(i, 1);
      if (list.length === 1) this.byDevice.set(s.device.id, list[0]!);
    }
    this.metrics.connected[s.transport]--;
    const { logger } = this.deps;
    if (logger.isLevelEnabled('debug')) logger.debug({ deviceId: s.device.id, transport: s.transport }, `device ${s.device.id} disconnected (${s.transport})`);
    return this.inOrder(s.device.id, () =>
      deviceDisconnected({ deps: this.deps, input: { device: s.device, connectionId: s.connectionId, transport: s.transport } }),
    );
  }

  /** revocation: close every live connection of the device on this node */
  closeDevice(deviceId: number): number {
    const list = [...this.sessionsOf(deviceId)];
    for (const s of list) closeSession(s);
    return list.length;
  }

  closeAll(): void {
    for (const held of [...this.byDevice.values()]) for (const s of Array.isArray(held) ? [...held] : [held]) closeSession(s);
  }

  /** resolves once every presence change begun so far is written */
  async settled(): Promise<void> {
    while (this.chains.size) await Promise.all([...this.chains.values()]);
  }

  /** `step` is an async function: it never throws, it rejects */
  private inOrder(deviceId: number, step: () => Promise<unknown>): Promise<void> {
    const prev = this.chains.get(deviceId);
    // nothing of this device under way (a storm's every connect): the step starts now, without
    // waiting a turn behind a resolved promise (issue #25: two promises and a closure a connect)
    const next: Promise<void> = (prev ? prev.then(step) : step()).then(
      () => {
        this.settle(deviceId, next);
      },
      (err) => {
        this.deps.logger.error({ err, deviceId }, 'presence update failed');
        this.settle(deviceId, next);
      },
    );
    this.chains.set(deviceId, next);
    return next;
  }

  /** the chain of a device ends with its last step */
  private settle(deviceId: number, done: Promise<void>): void {
    if (this.chains.get(deviceId) === done) this.chains.delete(deviceId);
  }
}

/** close code 1008 (policy violation): the credential is no longer valid */
export function closeSession(s: DeviceSession): void {
  if (s.transport === 'mqtt') (s.conn as MqttClientLike).close();
  else closeWebSocket(s.conn as WebSocket, 1008, 'closed by the service');
}

/** a close frame, then the socket goes even if the peer never answers it */
export function closeWebSocket(ws: WebSocket, code: number, reason: string): void {
  ws.close(code, reason);
  setTimeout(() => ws.terminate(), 500).unref();
}
