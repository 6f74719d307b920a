// The MQTT load generator of the broker benches, run as a CHILD PROCESS (fork with tsx) so it
// gets its own core instead of the event loop of the broker under test. Driven over IPC:
//   {type:'publish', ...}  MQTT.js publishers (QoS 1, a window of unacknowledged publishes each)
//                          and optionally one QoS 1 subscriber that counts what reaches it
//   {type:'connect', ...}  N raw MQTT connections (CONNECT + SUBSCRIBE), as light as a client
//                          can be, held open until told to close
//   {type:'commands', ...} one HTTP client and one device in this same process: PUT a command,
//                          time until the device has it (one clock for both ends)
// Identical for Hearth, bare Aedes and Mosquitto: only the URL and credentials change.
import mqtt, { type MqttClient } from 'mqtt';
import { closeConnections, connectAll, type ConnectJob } from './load-connect.js';
import { commands, type CommandJob } from './load-commands.js';

export type { ConnectJob, CommandJob };

export interface PublishJob {
  type: 'publish';
  url: string;
  publishers: { username?: string; password?: string; topic: string }[];
  /** messages per publisher */
  count: number;
  /** unacknowledged QoS 1 publishes per publisher */
  window: number;
  subscriber?: { topic: string; username?: string; password?: string };
}

type Msg = PublishJob | ConnectJob | CommandJob | { type: 'go' } | { type: 'close' };

const send = (m: unknown): void => void process.send!(m);
const now = () => performance.now();

// ---- publish ----

let publishers: MqttClient[] = [];
let subscriber: MqttClient | undefined;
let job: PublishJob | undefined;

async function preparePublish(j: PublishJob): Promise<void> {
  job = j;
  const opts = { reconnectPeriod: 0, connectTimeout: 30_000, keepalive: 60 };
  if (j.subscriber) {
    subscriber = await mqtt.connectAsync(j.url, {
      ...opts,
      username: j.subscriber.username,
      password: j.subscriber.password,
      clientId: `bench-sub-${process.pid}`,
    });
    await subscriber.subscribeAsync(j.subscriber.topic, { qos: 1 });
  }
  publishers = await Promise.all(
    j.publishers.map((p, i) => mqtt.connectAsync(j.url, { ...opts, username: p.username, password: p.password, clientId: `bench-pub-${process.pid}-${i}` })),
  );
  send({ type: 'ready' });
}

function publishAll(): void {
  const j = job!;
  const total = j.count * j.publishers.length;
  const start = now();
  let received = 0;
  subscriber?.on('message', () => {
    if (++received === total) send({ type: 'received', ms: now() - start, count: received });
  });
  let finished = 0;
  publishers.forEach((client, i) => {
    const topic = j.publishers[i].topic;
    let sent = 0;
    let acked = 0;
    const one = () => {
      const payload = JSON.stringify({ eventType: 'benchReading', eventData: { publisher: i, seq: sent, value: 21.5, unit: 'C' } });
      sent++;
      client.publish(topic, payload, { qos: 1 }, (err) => {
        if (err) {
          send({ type: 'error', message: err.message });
          return;
        }
        acked++;
        if (sent < j.count) one();
        else if (acked === j.count && ++finished === publishers.length) send({ type: 'published', ms: now() - start, count: total });
      });
    };
    for (let w = 0; w < Math.min(j.window, j.count); w++) one();
  });
}

process.on('message', (m: Msg) => {
  switch (m.type) {
    case 'commands':
      commands(m, send).catch((e) => send({ type: 'error', message: (e as Error).message }));
      break;
    case 'publish':
      preparePublish(m).catch((e) => send({ type: 'error', message: (e as Error).message }));
      break;
    case 'go':
      publishAll();
      break;
    case 'connect':
      void connectAll(m, send);
      break;
    case 'close':
      closeConnections();
      Promise.all([...publishers, ...(subscriber ? [subscriber] : [])].map((c) => c.endAsync(true))).finally(() => process.exit(0));
      break;
  }
});
send({ type: 'up' });
