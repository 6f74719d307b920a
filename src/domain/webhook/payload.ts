// The bodies webhooks receive: docs/webhooks.md#event-webhook for events, docs/webhooks.md#command-webhook for commands. Built field by
// field in the order of the documented tables, so nothing beyond them leaks into a receiver's input.
import type { EventRecord } from '../../ports/store.js';

export interface EventWebhookBody {
  eventType: string;
  eventData: Record<string, unknown>;
  timestamp: string;
  homeId: number;
  originDeviceId?: number;
  originDeviceClass?: string;
  originDeviceIp?: string;
  originProjectKeyID?: string;
  originProjectKeyName?: string;
}

/** docs/webhooks.md#event-webhook; the event must have a homeId (events of devices in no home go to no webhook) */
export function eventWebhookBody(e: EventRecord & { homeId: number }): EventWebhookBody {
  const body: EventWebhookBody = { eventType: e.eventType, eventData: e.eventData, timestamp: e.timestamp, homeId: e.homeId };
  if (e.originDeviceId !== undefined) body.originDeviceId = e.originDeviceId;
  if (e.originDeviceClass !== undefined) body.originDeviceClass = e.originDeviceClass;
  if (e.originDeviceIp !== undefined) body.originDeviceIp = e.originDeviceIp;
  // docs/webhooks.md#event-webhook: the webhook body spells it `originProjectKeyID`; the event shape (docs/concepts.md#events) `...Id`
  if (e.originProjectKeyId !== undefined) body.originProjectKeyID = e.originProjectKeyId;
  if (e.originProjectKeyName !== undefined) body.originProjectKeyName = e.originProjectKeyName;
  return body;
}

/**
 * The docs/webhooks.md#event-webhook JSON of an event. `eventJson` is JSON.stringify(e) when the
 * caller has it: when the body has the event's own keys in the same order (a device's event: no
 * project-key fields, which the body spells differently) the two texts are the same, and the
 * event is not serialised again.
 */
export function eventWebhookJson(e: EventRecord & { homeId: number }, eventJson?: string): string {
  const body = eventWebhookBody(e);
  if (eventJson !== undefined && sameKeys(body, e)) return eventJson;
  return JSON.stringify(body);
}

function sameKeys(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return false;
  return true;
}

export interface CommandWebhookBody {
  action: string;
  parameters: Record<string, unknown>;
  timestamp: string;
  homeId: number;
  originUserId?: number;
  originProjectKeyID?: string;
  originProjectKeyName?: string;
}

export function commandWebhookBody(c: {
  action: string;
  parameters: Record<string, unknown>;
  timestamp: string;
  homeId: number;
  origin: { userId: number } | { projectKeyId: string; projectKeyName: string } | undefined;
}): CommandWebhookBody {
  const body: CommandWebhookBody = { action: c.action, parameters: c.parameters, timestamp: c.timestamp, homeId: c.homeId };
  if (c.origin && 'userId' in c.origin) body.originUserId = c.origin.userId;
  if (c.origin && 'projectKeyId' in c.origin) {
    body.originProjectKeyID = c.origin.projectKeyId;
    body.originProjectKeyName = c.origin.projectKeyName;
  }
  return body;
}
