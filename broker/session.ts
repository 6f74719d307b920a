// What the broker keeps per live device connection (MQTT or command WebSocket): only what it
// needs to route and account for it. 10,000 connections must stay cheap, so no timers, no
// closures and no copy of the device row beyond four fields, resolved at CONNECT (and re-read
// at most once a second while the device publishes, current-device.ts).
import type { WebSocket } from 'ws';
import type { Caller } from '../src/domain/caller.js';
import type { PresenceDevice, Transport } from '../src/domain/presence/index.js';

/** the part of an Aedes client the broker uses */
export interface MqttClientLike {
  id: string;
  closed: boolean;
  close(done?: () => void): void;
}

let counter = 0;

export class DeviceSession {
  /** unique on this node; the Presence port keys connections by it */
  readonly connectionId: string;
  /** when `device` was read from the store (see current-device.ts) */
  deviceReadAt = Date.now();
  /**
   * MQTT: the filters granted on this connection (docs/devices.md#mqtt bound; bounded-persistence.ts).
   * A list replaced on each change (concat: no spare capacity), not a Set: a device holds two or
   * three filters, and a Set of two costs 150 bytes, this list 65 (memory per device, issue #25).
   */
  granted?: readonly string[];
  /** MQTT with clean session 0: the session's client id, marked offline when this connection ends */
  persistentId?: string;
  /** MQTT: a `reload` is being built or written ('busy'), and another was asked meanwhile ('again'): kv-reload.ts */
  reload?: 'busy' | 'again';
  /** signed in with a registered client certificate: its fingerprint (revoking it closes this connection) */
  certificate?: string;
  /**
   * MQTT [MQTT-4.6.0-2]: the publishes of this connection handed to the publish hook, and those
   * whose answer Aedes was given (it writes the PUBACK then), in the order they came; answers
   * ready before their turn wait here (authorize-publish.ts)
   */
  publishes = 0;
  answered = 0;
  early?: Map<number, EarlyAnswer>;

  constructor(
    /** the device as last read: its home may change while it is connected */
    public device: PresenceDevice,
    readonly transport: Transport,
    readonly ip: string | undefined,
    /** the Aedes client (transport mqtt) or the command WebSocket (transport websocket) */
    readonly conn: MqttClientLike | WebSocket,
    connectionPrefix: string,
  ) {
    this.connectionId = `${connectionPrefix}:${(++counter).toString(36)}`;
  }

  /** the Caller the domain verbs see for this connection */
  caller(): Caller {
    const d = this.device;
    return { type: 'device', projectId: d.projectId, deviceId: d.id, deviceClass: d.deviceClass, ip: this.ip };
  }
}

/** a publish's answer ready before the publishes received before it were answered */
export interface EarlyAnswer {
  /** consumed (null), or our failure */
  err: Error | null;
  packet: unknown;
  done: (err?: Error | null) => void;
}

/** an authenticated Aedes client carries its session here */
export interface WithSession {
  hearth?: DeviceSession;
}
export const sessionOf = (client: unknown): DeviceSession | undefined => (client as WithSession | null)?.hearth ?? undefined;
