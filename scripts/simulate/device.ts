// One simulated device: an MQTT.js client with the device's credentials, its KV store kept in sync
// with the server (docs: reload / set / delete, docs/devices.md#kv-sync), and an answer to every command:
// an outbox command (one with an `id`) is also acked on commandAck (docs/devices.md#command-outbox),
// with status error when its parameters ask for it (`fail: true`), for demos. With --firmware a
// `firmware-update` command is applied instead (firmware.ts) and acked with its outcome.
import { createConnection } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { IClientOptions, MqttClient } from 'mqtt';
import type { Counters } from './counters.js';
import type { SimDevice } from './api.js';
import { applyUpdate, parseUpdate, type FailShare, type FirmwareOptions, type FirmwareOutcome } from './firmware.js';

/** --firmware: the options and the fleet's one share of failing updates */
export interface FirmwareFollow {
  options: FirmwareOptions;
  share: FailShare;
}
import { sensorGateway, type SensorGateway } from './sensor-gateway.js';

/** how long a connected device waits for its last acknowledgements at the end */
const END_GRACE_MS = 5_000;

type Mqtt = Pick<typeof import('mqtt'), 'connect' | 'MqttClient'>;

/**
 * A client from a given local address (--source-addresses): over WebSocket ws takes it as a
 * request option; over TCP MQTT.js has no such option, so the client gets a stream builder that
 * opens the socket itself (each reconnect opens a new one, from the same address).
 */
function connectFrom(mqtt: Mqtt, brokerUrl: string, opts: IClientOptions, localAddress: string): MqttClient {
  const url = new URL(brokerUrl);
  if (url.protocol === 'ws:' || url.protocol === 'wss:') return mqtt.connect(brokerUrl, { ...opts, wsOptions: { localAddress } });
  const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
  const tls = url.protocol === 'mqtts:';
  const port = Number(url.port || (tls ? 8883 : 1883));
  return new mqtt.MqttClient(() => {
    const socket = createConnection({ host, port, localAddress });
    return tls ? tlsConnect({ socket, servername: url.hostname }) : socket;
  }, opts);
}

export interface SimulatedDevice {
  readonly device: SimDevice;
  readonly connected: boolean;
  /** publishes one event or data post (QoS 1); counted when the broker acknowledges it */
  publish(kind: 'event' | 'data', seq: number): void;
  /** sets a KV key from the device side */
  setKv(key: string, value: unknown): void;
  end(): Promise<void>;
}

export function simulateDevice(
  mqtt: Mqtt,
  brokerUrl: string,
  device: SimDevice,
  c: Counters,
  localAddress?: string,
  firmware?: FirmwareFollow,
  profile: 'default' | 'sensor-gateway' = 'default',
): SimulatedDevice {
  const base = `/devices/${device.id}`;
  /** firmware-update commands by id: in progress (a second delivery is ignored) or done (its ack sent again, the first may be lost) */
  const updates = new Map<string, FirmwareOutcome | 'running'>();
  const kv = new Map<string, unknown>();
  let rev = 0;
  let everConnected = false;
  let refused = false;
  /** Ctrl-C: the device is ending, and what its end cuts short (a SUBSCRIBE in flight) is no error */
  let ending = false;
  const opts: IClientOptions = {
    username: String(device.id),
    password: device.apiKey,
    clientId: `sim-${device.id}`,
    clean: true,
    keepalive: 60,
    reconnectPeriod: 2000,
    connectTimeout: 15_000,
    protocolVersion: 4,
  };
  const client: MqttClient = localAddress ? connectFrom(mqtt, brokerUrl, opts, localAddress) : mqtt.connect(brokerUrl, opts);
  const gateway: SensorGateway | undefined =
    profile === 'sensor-gateway'
      ? sensorGateway({
          device,
          event: (eventType, eventData, answer) =>
            client.publish(`${base}/event`, JSON.stringify({ eventType, eventData }), { qos: 1 }, (err) => {
              if (err) c.error(`device ${device.id}: ${eventType} not acknowledged: ${err.message}`);
              else if (answer) c.commandsAnswered++;
              else c.events++;
            }),
          setKv: (key, value) => {
            kv.set(key, value);
            setKv(key, value);
          },
        })
      : undefined;

  client.on('connect', () => {
    if (everConnected) c.reconnects++;
    else c.everConnected++;
    everConnected = true;
    client.subscribe([`${base}/command`, `${base}/kv`], { qos: 1 }, (err) => {
      if (err && !ending) c.error(`device ${device.id}: subscribe failed: ${err.message}`);
    });
  });
  client.on('error', (err: Error & { code?: number }) => {
    // CONNACK 4/5 (bad credentials, device revoked or deleted): retrying will not help
    if (err.code === 4 || err.code === 5) {
      refused = true;
      c.error(`device ${device.id}: the broker refused its credentials (CONNACK ${err.code})`);
      client.end(true);
    } else if (!ending) c.error(`device ${device.id}: ${err.message}`);
  });
  client.on('offline', () => {
    if (everConnected && !refused) c.drops++;
  });
  client.on('message', (topic, payload) => {
    let msg: any;
    try {
      msg = JSON.parse(payload.toString());
    } catch {
      c.error(`device ${device.id}: a message on ${topic} is not JSON`);
      return;
    }
    if (topic.endsWith('/command')) {
      if (firmware && msg?.action === 'firmware-update' && typeof msg.id === 'string') followUpdate(msg.id, msg.parameters);
      else answerCommand(msg);
    } else if (topic.endsWith('/kv')) applyKv(msg);
  });

  function applyKv(msg: { action?: string; rev?: number; key?: string; value?: unknown; items?: { key: string; value: unknown }[] }) {
    c.kvReceived++;
    if (msg.action === 'reload') {
      kv.clear();
      for (const it of msg.items ?? []) kv.set(it.key, it.value);
    } else if (msg.action === 'set' && msg.key !== undefined) kv.set(msg.key, msg.value);
    else if (msg.action === 'delete' && msg.key !== undefined) kv.delete(msg.key);
    else return;
    if (typeof msg.rev === 'number') rev = msg.rev;
    gateway?.kvChanged(kv, msg.action === 'reload');
  }

  function answerCommand(msg: { action?: unknown; parameters?: unknown; id?: unknown }) {
    c.commandsReceived++;
    if (gateway?.command(msg.action, msg.parameters)) {
      if (typeof msg.id === 'string') ackCommand(msg.id, msg.parameters);
      return;
    }
    const eventData = { action: msg.action, parameters: msg.parameters ?? {}, kvRev: rev, kv: Object.fromEntries(kv) };
    if (typeof msg.id === 'string') ackCommand(msg.id, msg.parameters);
    client.publish(`${base}/event`, JSON.stringify({ eventType: 'commandAnswered', eventData }), { qos: 1 }, (err) => {
      if (err) c.error(`device ${device.id}: answer not acknowledged: ${err.message}`);
      else c.commandsAnswered++;
    });
  }

  function followUpdate(id: string, parameters: unknown) {
    const seen = updates.get(id);
    if (seen === 'running') return;
    if (seen) return sendAck({ id, ...seen });
    updates.set(id, 'running');
    c.firmwareUpdates++;
    const update = parseUpdate(parameters);
    const outcome: Promise<FirmwareOutcome> =
      typeof update === 'string'
        ? (c.error(`device ${device.id}: a firmware-update command it cannot follow: ${update}`),
          c.firmwareFailed++,
          Promise.resolve({ status: 'error', result: { error: update } }))
        : applyUpdate(firmware!.options, device, update, firmware!.share.next(), c);
    void outcome.then((o) => {
      updates.set(id, o);
      if (!ending) sendAck({ id, ...o });
    });
  }

  function sendAck(ack: { id: string; status: string; result: unknown }) {
    client.publish(`${base}/commandAck`, JSON.stringify(ack), { qos: 1 }, (err) => {
      if (err && !ending) c.error(`device ${device.id}: command ack not acknowledged: ${err.message}`);
    });
  }

  function ackCommand(id: string, parameters: unknown) {
    const fail = typeof parameters === 'object' && parameters !== null && (parameters as { fail?: unknown }).fail === true;
    sendAck(fail ? { id, status: 'error', result: { error: 'failed on request (parameters.fail)' } } : { id, status: 'ok', result: { kvRev: rev } });
  }

  function setKv(key: string, value: unknown) {
    client.publish(`${base}/kv`, JSON.stringify({ action: 'set', key, value }), { qos: 1 }, (err) => {
      if (err) c.error(`device ${device.id}: KV set not acknowledged: ${err.message}`);
      else c.kvSet++;
    });
  }

  return {
    device,
    get connected() {
      return client.connected;
    },
    publish(kind, seq) {
      const [topic, body] =
        kind === 'event'
          ? [`${base}/event`, { eventType: 'simTick', eventData: { seq } }]
          : [`${base}/data`, { data: [{ seq, temperature: +(18 + Math.random() * 8).toFixed(2), humidity: Math.round(30 + Math.random() * 40) }] }];
      client.publish(topic, JSON.stringify(body), { qos: 1 }, (err) => {
        if (err) c.error(`device ${device.id}: ${kind} not acknowledged: ${err.message}`);
        else if (kind === 'event') c.events++;
        else c.data++;
      });
    },
    setKv,
    // connected: what was published gets its PUBACK first, within END_GRACE_MS; a broker that is
    // gone (or stops answering) would hold that wait forever, so the client is then ended by force
    end: async () => {
      ending = true;
      gateway?.stop();
      if (!client.connected) return void client.end(true);
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((r) => (timer = setTimeout(r, END_GRACE_MS)));
      await Promise.race([client.endAsync(), grace]);
      clearTimeout(timer);
      if (!client.disconnected) client.end(true);
    },
  };
}
