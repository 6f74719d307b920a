// The device's MQTT topics, one table: the broker's ACL (broker/topics.ts) and the AsyncAPI
// document (/asyncapi.json) both read it, so the contract cannot drift from what is enforced.
// Topics are MODE's, so existing firmware works unchanged. docs/devices.md#mqtt-topics

export interface DeviceTopic {
  /** the topic with `{deviceId}` (and `{label}`) placeholders */
  address: string;
  /** what the device may do on it: publish to it, subscribe to it, or both */
  device: 'publish' | 'subscribe' | 'both';
  summary: string;
}

export const DEVICE_TOPICS = {
  command: { address: '/devices/{deviceId}/command', device: 'subscribe', summary: 'Commands for the device, `{action, parameters}`' },
  kv: { address: '/devices/{deviceId}/kv', device: 'both', summary: "Sync messages of the device's key-value store (reload, set, delete)" },
  event: { address: '/devices/{deviceId}/event', device: 'publish', summary: 'Events from the device, `{eventType, eventData}`' },
  data: { address: '/devices/{deviceId}/data', device: 'publish', summary: 'Data records from the device, `{data: [...]}`, routed to data sources' },
  commandAck: {
    address: '/devices/{deviceId}/commandAck',
    device: 'publish',
    summary: 'Answers to outbox commands, `{id, status?: "ok" | "error", result?}` (docs/devices.md#command-outbox)',
  },
  bulkData: { address: '/devices/{deviceId}/bulkData/{label}', device: 'publish', summary: 'Bulk data under a label (accepted and logged; not stored yet)' },
  bulkDataResponse: {
    address: '/devices/{deviceId}/bulkData/{label}/response',
    device: 'subscribe',
    summary: 'Answers to bulk data (subscribe with `+` for every label)',
  },
} as const satisfies Record<string, DeviceTopic>;

export type DeviceTopicName = keyof typeof DEVICE_TOPICS;

/** the topic of one device (and label) */
export const deviceTopic = (name: DeviceTopicName, deviceId: number, label = ''): string =>
  DEVICE_TOPICS[name].address.replace('{deviceId}', String(deviceId)).replace('{label}', label);

/** the topic's part after `/devices/{deviceId}/` (`command`, `bulkData/{label}` ...) */
export const topicTail = (name: DeviceTopicName): string => DEVICE_TOPICS[name].address.slice('/devices/{deviceId}/'.length);
