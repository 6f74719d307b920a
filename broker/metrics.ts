// The broker's Prometheus metrics (docs/operations.md#health-and-metrics /metrics): device connections, connects and
// refusals, device publishes by topic kind, drops, commands and KV sync messages delivered.
// The hot paths (a publish, a command) add 1 to a plain number; prom-client's metric objects are
// filled from those numbers only when /metrics is read, since its own inc() hashes and checks a
// label object on every call (the reason src/http/metrics.ts does the same).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Transport } from '../src/domain/presence/index.js';
import type { PublishKind } from './topics.js';

type Kind = PublishKind['kind'];
const KINDS: readonly Kind[] = ['event', 'kv', 'data', 'commandAck', 'bulkData'];
const TRANSPORTS: readonly Transport[] = ['mqtt', 'websocket'];

/** the label of hearth_broker_slow_consumers_closed_total (output-bound.ts) */
export type OutputTransport = 'mqtt_tcp' | 'mqtt_ws' | 'command_ws' | 'kv_ws' | 'user_stream';
const OUTPUT_TRANSPORTS: readonly OutputTransport[] = ['mqtt_tcp', 'mqtt_ws', 'command_ws', 'kv_ws', 'user_stream'];

/** per transport, one plain number each */
type ByTransport = Record<Transport, number>;
const byTransport = (): ByTransport => ({ mqtt: 0, websocket: 0 });

export class BrokerMetrics {
  /** device connections open now */
  readonly connected = byTransport();
  /** device connections accepted */
  readonly connects = byTransport();
  /** device publishes received, by topic kind (before they are handled or dropped) */
  readonly publishes: Record<Kind, number> = { event: 0, kv: 0, data: 0, commandAck: 0, bulkData: 0 };
  /** commands written to a device connection */
  readonly commands = byTransport();
  /** KV sync messages (set, delete, reload) written to device connections and KV watchers */
  readonly kvSyncs = byTransport();
  /** docs/devices.md#limits: connections closed because their unsent output passed the bound (output-bound.ts) */
  readonly slowConsumersClosed = Object.fromEntries(OUTPUT_TRANSPORTS.map((t) => [t, 0])) as Record<OutputTransport, number>;
  /** `${transport} ${reason}` → refusals; bounded by the reasons catalogue */
  private readonly refusals = new Map<string, number>();
  /** drop reason → publishes dropped; bounded (authorize-publish.ts names them) */
  private readonly drops = new Map<string, number>();

  constructor(registry: Registry) {
    const self = this;
    const perTransport = (name: string, help: string, read: () => ByTransport, type: 'counter' | 'gauge') => {
      const Metric = type === 'counter' ? Counter : Gauge;
      new Metric({
        name,
        help,
        labelNames: ['transport'],
        registers: [registry],
        collect(this: Counter<'transport'> | Gauge<'transport'>) {
          const values = read();
          this.reset();
          for (const t of TRANSPORTS) (this as Gauge<'transport'>).inc({ transport: t }, values[t]);
        },
      });
    };
    perTransport(
      'hearth_broker_connected_devices',
      'Device connections open on this node, by transport (a device with two connections counts twice)',
      () => self.connected,
      'gauge',
    );
    perTransport('hearth_broker_connects_total', 'Device connections accepted, by transport', () => self.connects, 'counter');
    perTransport('hearth_broker_commands_delivered_total', 'Commands written to device connections, by transport', () => self.commands, 'counter');
    perTransport(
      'hearth_broker_kv_syncs_total',
      'KV sync messages (set, delete, reload) written to devices and KV watchers, by transport',
      () => self.kvSyncs,
      'counter',
    );
    new Counter({
      name: 'hearth_broker_slow_consumers_closed_total',
      help: 'Connections closed because their unsent output passed limits.connectionOutputBytes (the client stopped reading), by transport',
      labelNames: ['transport'],
      registers: [registry],
      collect() {
        this.reset();
        for (const t of OUTPUT_TRANSPORTS) this.inc({ transport: t }, self.slowConsumersClosed[t]);
      },
    });
    new Counter({
      name: 'hearth_broker_connect_refusals_total',
      help: 'Device connections refused, by transport and reason (the error reason of docs/api.md)',
      labelNames: ['transport', 'reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, n] of self.refusals) {
          const [transport, reason] = key.split(' ');
          this.inc({ transport, reason }, n);
        }
      },
    });
    new Counter({
      name: 'hearth_broker_publishes_total',
      help: 'MQTT publishes received from devices, by topic kind (event, kv, data, bulkData)',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        this.reset();
        for (const k of KINDS) this.inc({ kind: k }, self.publishes[k]);
      },
    });
    new Counter({
      name: 'hearth_broker_publishes_dropped_total',
      help: 'MQTT publishes dropped, by reason (rate_limit, topic, payload, or the error reason in lower case)',
      labelNames: ['reason'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [reason, n] of self.drops) this.inc({ reason }, n);
      },
    });
  }

  refused(transport: Transport, reason: string): void {
    const key = `${transport} ${reason}`;
    this.refusals.set(key, (this.refusals.get(key) ?? 0) + 1);
  }

  dropped(reason: string): void {
    this.drops.set(reason, (this.drops.get(reason) ?? 0) + 1);
  }
}
