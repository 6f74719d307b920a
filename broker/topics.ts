// The MQTT topic ACL (API.md §5). A device publishes only to its own event, kv, data and
// bulkData/{label} topics and subscribes only to its own command, kv and bulkData responses.
// Topics are MODE's, so existing firmware works unchanged.

export const commandTopic = (deviceId: number): string => `/devices/${deviceId}/command`;
export const kvTopic = (deviceId: number): string => `/devices/${deviceId}/kv`;

export type PublishKind = { kind: 'event' } | { kind: 'kv' } | { kind: 'data' } | { kind: 'bulkData'; label: string };

const WILDCARD = /[+#]/;

/** what a publish of this device to this topic is, or undefined when the device may not publish there */
export function publishKindOf(deviceId: number, topic: string): PublishKind | undefined {
  const own = `/devices/${deviceId}/`;
  if (!topic.startsWith(own)) return undefined;
  const rest = topic.slice(own.length);
  if (rest === 'event' || rest === 'kv' || rest === 'data') return { kind: rest };
  if (rest.startsWith('bulkData/')) {
    const label = rest.slice('bulkData/'.length);
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
  if (rest === 'command' || rest === 'kv') return true;
  // `bulkData/+/response`, or the response topic of one label
  const m = /^bulkData\/([^/]+)\/response$/.exec(rest);
  return !!m && (m[1] === '+' || !WILDCARD.test(m[1]));
}
