// Device events (docs/concepts.md#events, docs/concepts.md#devices "Events").
import * as v from 'valibot';
import { isJsonObject, jsonObject } from '../validate.js';

// docs/concepts.md#events: starts with a letter; a dash or underscore must be followed by alphanumerics. System
// event types (`_deviceConnected_`...) start with `_`, so senders cannot forge them.
export const EVENT_TYPE_PATTERN = /^[a-zA-Z](?:[\-_]?[a-zA-Z0-9]+)*$/;

/** docs/concepts.md#events pattern without its nested quantifier (equivalent; linear time on hostile input) */
const EVENT_TYPE_LINEAR = /^[a-zA-Z][a-zA-Z0-9]*(?:[\-_][a-zA-Z0-9]+)*$/;

export const EventTypeSchema = v.pipe(
  v.string('eventType must be a string'),
  v.regex(EVENT_TYPE_LINEAR, 'eventType must match ^[a-zA-Z](?:[\\-_]?[a-zA-Z0-9]+)*$'),
  v.description('Event type: starts with a letter; a `-` or `_` must be followed by letters or digits (types starting with `_` are system events)'),
);

/** eventData's check; isEventBody calls the same isJsonObject */
export const EventDataSchema = jsonObject('eventData must be a JSON object');

/** body of sendDeviceEventCloud; the service fields (homeId, timestamp, origin*) are ignored */
export const EventBodySchema = v.object({ eventType: EventTypeSchema, eventData: EventDataSchema });
export type EventBody = v.InferOutput<typeof EventBodySchema>;

/**
 * EventBodySchema's verdict on a body it accepts, without valibot: its parse builds an output
 * object, a dataset and a pipe's worth of checks for every event, a share of the verb's own time and
 * garbage on the ingest path (issue #26). A body this refuses goes through EventBodySchema, which
 * says what is wrong in the same words as before; test/unit/broker/event-schema.test.ts holds the
 * two to the same answers.
 */
export function isEventBody(body: unknown): body is EventBody {
  if (typeof body !== 'object' || body === null) return false;
  const { eventType, eventData } = body as Record<string, unknown>;
  return typeof eventType === 'string' && EVENT_TYPE_LINEAR.test(eventType) && isJsonObject(eventData);
}

/**
 * docs/concepts.md#devices: over MQTT a missing `eventData` is taken as `{}` (MODE's Go SDK leaves it out when
 * empty, `omitempty`); over HTTP it stays required (docs/concepts.md#events), so only the broker calls this.
 */
export function withMqttEventDefaults(body: Record<string, unknown>): Record<string, unknown> {
  return body.eventData === undefined ? { ...body, eventData: {} } : body;
}
