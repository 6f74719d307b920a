// docs/devices.md#mqtt: one device cannot exhaust the service with persistent sessions (clean session 0).
// Issue 13 F3: fresh client ids, each session subscribing to thousands of filters, then gone;
// the offline sessions kept everything forever. Now:
// - a device holds at most `maxSessionsPerDevice` persistent sessions. A new one past the cap
//   evicts the device's oldest OFFLINE session (a device that re-flashed its firmware with new
//   client ids keeps working, and the abandoned sessions go first); when every session is in
//   use by a live connection, the new one is refused with CONNACK 3 (server unavailable: try
//   later). Each eviction and refusal is a general-log line.
// - an offline session is removed `sessionExpirySeconds` after its connection ended: its
//   subscriptions, queued packets and QoS 2 state leave Aedes's persistence (a sweep, one timer
//   per broker, not one per session).
// The bookkeeping is the MqttSessions port (in memory, or Redis shared by every broker).
import type { MqttSessions } from '../../src/ports/mqtt-sessions.js';
import { AppError } from '../../src/domain/errors.js';
import type { BrokerCore } from '../core.js';
import type { BoundedPersistence } from '../limits/bounded-persistence.js';
import { brokerLog, clip } from '../general-log.js';
import type { DeviceSession } from '../session.js';

export interface SessionBounds {
  maxSessionsPerDevice: number;
  sessionExpirySeconds: number;
}

/** sessions removed per sweep (the next sweep takes the rest) */
const SWEEP_BATCH = 500;

export class PersistentSessions {
  private timer?: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly ctx: BrokerCore,
    private readonly registry: MqttSessions,
    private readonly persistence: BoundedPersistence,
    private readonly bounds: SessionBounds,
  ) {}

  /**
   * before a clean-session-0 connection is accepted: records it, evicts the oldest offline
   * sessions of the device past the cap, or refuses (LIMIT_EXCEEDED → CONNACK 3)
   */
  async admit(s: DeviceSession, clientId: string): Promise<void> {
    const deviceId = s.device.id;
    const all = await this.registry.connected(deviceId, clientId, s.connectionId);
    const others = all.filter((e) => e.clientId !== clientId);
    const excess = others.length + 1 - this.bounds.maxSessionsPerDevice;
    if (excess <= 0) return;
    const offline = others.filter((e) => e.offlineSince !== null).sort((a, b) => a.offlineSince! - b.offlineSince!);
    if (offline.length < excess) {
      // every other session is held by a live connection: this one waits (it stays recorded as
      // offline, with nothing in it, until it is evicted or expires)
      await this.registry.disconnected(deviceId, clientId, s.connectionId, Date.now());
      throw new AppError('LIMIT_EXCEEDED', {
        deviceId,
        message: `device ${deviceId} already holds ${others.length} persistent sessions in use (the limit is ${this.bounds.maxSessionsPerDevice})`,
      });
    }
    for (const e of offline.slice(0, excess)) {
      await this.drop(deviceId, e.clientId);
      brokerLog(
        this.ctx,
        s.device.projectId,
        s.caller(),
        'warn',
        `persistent MQTT session ${clip(JSON.stringify(e.clientId), 80)} of device ${deviceId} removed: the device opened session ${clip(JSON.stringify(clientId), 80)} past its limit of ${this.bounds.maxSessionsPerDevice}, and that was its oldest offline one`,
      );
    }
  }

  /** a clean-session-1 connection ends whatever session its client id had */
  forget(deviceId: number, clientId: string): void {
    this.registry.remove(deviceId, clientId).catch((err) => this.ctx.deps.logger.warn({ err }, 'forgetting an MQTT session failed'));
  }

  /** the connection of a persistent session ended: its offline lifetime starts */
  closed(s: DeviceSession, clientId: string): void {
    this.registry
      .disconnected(s.device.id, clientId, s.connectionId, Date.now())
      .catch((err) => this.ctx.deps.logger.warn({ err }, 'recording an MQTT session offline failed'));
  }

  start(): void {
    const ms = Math.min(60_000, Math.max(100, (this.bounds.sessionExpirySeconds * 1000) / 4));
    this.timer = setInterval(() => void this.sweep(), ms);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** removes the sessions offline for longer than their lifetime */
  async sweep(now = Date.now()): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let n = 0;
    try {
      const due = await this.registry.expired(now - this.bounds.sessionExpirySeconds * 1000, SWEEP_BATCH);
      const live = (this.ctx.aedes as unknown as { clients: Record<string, unknown> }).clients;
      for (const { deviceId, clientId } of due) {
        if (live[clientId]) continue; // taken again meanwhile, on this node
        await this.drop(deviceId, clientId);
        n++;
        this.ctx.deps.logger.debug({ deviceId, clientId }, 'expired persistent MQTT session removed');
      }
      if (n && this.ctx.throttle.allow('sessions-expired')) this.ctx.deps.logger.info(`${n} expired persistent MQTT sessions removed`);
    } catch (err) {
      this.ctx.deps.logger.warn({ err }, 'MQTT session expiry sweep failed');
    } finally {
      this.sweeping = false;
    }
    return n;
  }

  private async drop(deviceId: number, clientId: string): Promise<void> {
    await this.persistence.dropSession(clientId);
    await this.registry.remove(deviceId, clientId);
  }
}
