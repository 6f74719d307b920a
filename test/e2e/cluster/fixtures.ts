// What the cluster tests do through the real API of a node (homes, devices, modules) and as a real
// device (MQTT.js over TCP to one broker node). MQTT clients made here close when the test ends.
import { onTestFinished } from 'vitest';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import type { Cluster } from '../../helpers/cluster.js';
import type { HearthProcess } from '../../helpers/process.js';

export interface Device {
  id: number;
  apiKey: string;
}

export async function createHome(c: Cluster, api: string, name = 'cluster home'): Promise<number> {
  const r = await c.http(api, 'POST', '/homes', { body: { name, projectId: 1 } });
  if (r.status !== 201) throw new Error(`home not created: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.id;
}

export async function createDevice(c: Cluster, api: string, homeId: number): Promise<Device> {
  const r = await c.http(api, 'POST', '/devices', { body: { projectId: 1, deviceClass: 'default', homeId, name: 'cluster device' } });
  if (r.status !== 201) throw new Error(`device not created: ${r.status} ${JSON.stringify(r.body)}`);
  return { id: r.body.id, apiKey: r.body.apiKey };
}

/** an event webhook module (docs/webhooks.md) for these event types; returns its signing key */
export async function createEventModule(c: Cluster, api: string, id: string, url: string, subscriptions: string[]): Promise<string> {
  const r = await c.http(api, 'POST', '/projects/1/smartModules', {
    body: { id, moduleType: 'webhooks', eventWebhook: { url, subscriptions: subscriptions.join('\n') } },
  });
  if (r.status !== 201) throw new Error(`module not created: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.eventWebhook.key;
}

/** every delivery of the module as its delivery log shows it */
export async function deliveriesOf(c: Cluster, api: string, moduleId: string): Promise<{ id: string; status: string }[]> {
  const r = await c.http(api, 'GET', `/projects/1/smartModules/${moduleId}/deliveries?limit=10000`);
  if (r.status !== 200) throw new Error(`delivery log: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function isConnected(c: Cluster, api: string, deviceId: number): Promise<boolean> {
  const r = await c.http(api, 'GET', `/devices/${deviceId}`);
  if (r.status !== 200) throw new Error(`device ${deviceId}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.isConnected;
}

/** the device over MQTT (username = id, password = its key) to one broker node's TCP port */
export async function connectDevice(broker: HearthProcess, d: Device, opts: IClientOptions = {}): Promise<MqttClient> {
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker.mqttPort}`, {
    username: String(d.id),
    password: d.apiKey,
    reconnectPeriod: 0,
    connectTimeout: 5000,
    ...opts,
  });
  onTestFinished(() => client.endAsync(true).catch(() => undefined));
  return client;
}

export const commandTopic = (id: number) => `/devices/${id}/command`;
export const kvTopic = (id: number) => `/devices/${id}/kv`;
export const eventTopic = (id: number) => `/devices/${id}/event`;
