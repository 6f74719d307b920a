// The MQTT topic ACL (docs/devices.md#mqtt-topics), read from the one topic table
// (src/protocol/device-topics.ts) that the AsyncAPI document is generated from. A device publishes
// only to its own event, kv, data, commandAck and bulkData/{label} topics and subscribes only to its own
// command, kv and bulkData responses.
import { DEVICE_TOPICS, topicTail, type DeviceTopicName } from '../src/protocol/device-topics.js';

/** a topic of the table without a label, as one concatenation per use (deviceTopic replaces twice) */
const topicOf = (name: DeviceTopicName): ((deviceId: number) => string) => {
  const [head, tail] = DEVICE_TOPICS[name].address.split('{deviceId}');
  return (deviceId) => head + deviceId + tail;
};
// built several times per connect (subscribe, kv reload, command outbox): issue #25
export const commandTopic = topicOf('command');
export const kvTopic = topicOf('kv');

export type PublishKind = { kind: 'event' } | { kind: 'kv' } | { kind: 'data' } | { kind: 'commandAck' } | { kind: 'bulkData'; label: string };

const WILDCARD = /[+#]/;
const names = Object.keys(DEVICE_TOPICS) as DeviceTopicName[];
const plain = (way: 'publish' | 'subscribe') =>
  new Set(
    names
      .filter((n) => DEVICE_TOPICS[n].device === way || DEVICE_TOPICS[n].device === 'both')
      .map(topicTail)
      .filter((t) => !t.includes('{')),
  );
/** `event`, `kv`, `data`, `commandAck`: topics a device publishes to, without a label */
const PUBLISH = plain('publish');
/** `command`, `kv` */
const SUBSCRIBE = plain('subscribe');
const BULK = topicTail('bulkData').replace('{label}', ''); // `bulkData/`
const BULK_RESPONSE = new RegExp(`^${topicTail('bulkDataResponse').replace('{label}', '([^/]+)')}$`);

/** the kinds without a label, one object each: every device publish asks */
const PLAIN_KINDS = new Map<string, PublishKind>([...PUBLISH].map((t) => [t, { kind: t } as PublishKind]));
const DEVICES = '/devices/';

/** what a publish of this device to this topic is, or undefined when the device may not publish there */
export function publishKindOf(deviceId: number, topic: string): PublishKind | undefined {
  // `/devices/{deviceId}/`, compared where it stands rather than built for each publish
  if (!topic.startsWith(DEVICES)) return undefined;
  const id = String(deviceId);
  const slash = DEVICES.length + id.length;
  if (!topic.startsWith(id, DEVICES.length) || topic.charCodeAt(slash) !== 0x2f /* / */) return undefined;
  const rest = topic.slice(slash + 1);
  const plainKind = PLAIN_KINDS.get(rest);
  if (plainKind) return plainKind;
  if (rest.startsWith(BULK)) {
    const label = rest.slice(BULK.length);
    // one topic level: `bulkData/x/response` is the service's answer, never the device's to send
    if (label && !label.includes('/') && !WILDCARD.test(label)) return { kind: 'bulkData', label };
  }
  return undefined;
}

/** may this device subscribe to this filter? (anything else gets SUBACK 0x80) */
export function subscriptionAllowed(deviceId: number, filter: string): boolean {
  const own = `/devices/${deviceId}/`;
  if (!filter.startsWith(own)) return false;
  const rest = filter.slice(own.length);
  if (SUBSCRIBE.has(rest)) return true;
  // `bulkData/+/response`, or the response topic of one label
  const m = BULK_RESPONSE.exec(rest);
  return !!m && (m[1] === '+' || !WILDCARD.test(m[1]));
}
