// sendDeviceEventCloud (docs/api.md#device-operations, docs/concepts.md#events; docs/concepts.md#devices): an event from the device itself (REST or
// MQTT) or from a project key with scope `events`. The service adds timestamp, homeId and the
// origin fields, then hands it to the one event pipeline (emitEvent).
import type { Body, Deps, DeviceRef, EmitDeps, StoreOf, VerbArgs } from '../deps.js';
import type { DeviceRow, EventRecord } from '../../ports/store.js';
import type { Caller } from '../caller.js';
import { deviceFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { emitEvent, emitEventAnswering } from './emit.js';
import { EventBodySchema, isEventBody } from './schemas.js';

type IngestDeps = EmitDeps & Pick<Deps, 'limits' | 'homelessEvents'> & StoreOf<'logs'>;
/** sendEvent also finds the device and checks the caller may speak for it */
type SendDeps = IngestDeps & StoreOf<'devices' | 'members'>;
type EventDevice = Pick<DeviceRow, 'id' | 'projectId' | 'deviceClass' | 'homeId'>;

export async function sendEvent({ deps, caller, input: { deviceId, body } }: VerbArgs<SendDeps, DeviceRef & Body>): Promise<EventRecord> {
  const device = await deviceFor(deps, caller, deviceId, ['project key', 'self'], 'events');
  // a REST event: its sender's connection waits for this answer (group-commit.ts)
  return ingest(deps, caller, device, body, true);
}

/**
 * The same, for a device the caller has already been admitted to (the broker resolves its
 * connection's device itself, and re-reads it often enough to follow a change of home).
 */
export function sendEventOf({ deps, caller, input: { device, body } }: VerbArgs<IngestDeps, { device: EventDevice } & Body>): Promise<EventRecord> {
  return ingest(deps, caller, device, body, false);
}

// positional on purpose: both verbs share it on the event hot path without building a second argument object.
// Not async: one promise chain per event instead of an async frame here and another in emitEvent,
// about a seventh of the broker's CPU per MQTT event (issue #26, same process alternating). A body
// refused still rejects the promise, as an async function's would.
function ingest(deps: IngestDeps, caller: Caller, device: EventDevice, body: unknown, senderWaits: boolean): Promise<EventRecord> {
  try {
    return ingestNow(deps, caller, device, body, senderWaits);
  } catch (err) {
    return Promise.reject(err);
  }
}

function ingestNow(deps: IngestDeps, caller: Caller, device: EventDevice, body: unknown, senderWaits: boolean): Promise<EventRecord> {
  // valibot only for a body that is refused: it names the issues (schemas.ts isEventBody)
  const input = isEventBody(body) ? body : parseWith(EventBodySchema, body);
  const now = deps.clock.now();
  const timestamp = deps.ids.timestamp(now);
  // docs/concepts.md#events: origin fields by who sent it. The common case, a device of a home
  // with its address known, in one literal with its fields in the order eventOf adds them: added
  // one by one they went to a property store that grew twice, about 100 bytes of garbage per
  // event and the hidden-class changes besides (issue #26)
  const event: EventRecord =
    caller.type === 'device' && device.homeId !== null && caller.ip
      ? {
          eventType: input.eventType,
          eventData: input.eventData,
          timestamp,
          homeId: device.homeId,
          originDeviceId: device.id,
          originDeviceClass: device.deviceClass,
          originDeviceIp: caller.ip,
        }
      : eventOf(caller, device, input, timestamp);
  // the one serialisation of the event, reused by its history row and its webhook payloads. Its
  // size bounds its data's: only an event whose JSON could be over the limit serialises its data
  // alone, for the exact size (a UTF-16 unit is at most 3 bytes of UTF-8)
  const json = JSON.stringify(event);
  const limit = deps.limits.eventDataBytes;
  if (json.length * 3 > limit && Buffer.byteLength(json) > limit) {
    const size = Buffer.byteLength(JSON.stringify(input.eventData));
    if (size > limit) {
      throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'eventData', message: `eventData is ${size} bytes; the limit is ${limit}` }] });
    }
  }
  const toEmit = { projectId: device.projectId, event, json, now, senderWaits };
  if (device.homeId !== null) return emitEventAnswering(deps, toEmit, event);
  return emitEvent(deps, toEmit)
    .then(() => deps.homelessEvents.note(device.projectId, device.id, event.eventType))
    .then(() => event);
}

/** the event of any other sender: a device without a home or an address, a project key */
function eventOf(caller: Caller, device: EventDevice, input: Pick<EventRecord, 'eventType' | 'eventData'>, timestamp: string): EventRecord {
  const event: EventRecord = { eventType: input.eventType, eventData: input.eventData, timestamp };
  if (device.homeId !== null) event.homeId = device.homeId;
  if (caller.type === 'device') {
    event.originDeviceId = device.id;
    event.originDeviceClass = device.deviceClass;
    if (caller.ip) event.originDeviceIp = caller.ip;
  } else if (caller.type === 'project key') {
    event.originProjectKeyId = caller.keyId;
    event.originProjectKeyName = caller.keyName;
  }
  return event;
}
