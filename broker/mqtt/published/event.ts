// `/devices/{own}/event` (docs/devices.md#mqtt): `{eventType, eventData}`, the same verb as
// PUT /devices/{id}/event with the device's own credential, so the same validation, origin
// fields and pipeline (but a missing eventData is `{}` here, docs/concepts.md#devices). Resolves once the event
// is committed: only then does Aedes PUBACK it.
import type { Client, PublishPacket } from 'aedes';
import { sendEventOf } from '../../../src/domain/event/send.js';
import { withMqttEventDefaults } from '../../../src/domain/event/schemas.js';
import type { BrokerContext } from '../../context.js';
import { currentDevice, deviceIfFresh } from '../current-device.js';
import type { DeviceSession } from '../../session.js';
import { jsonObjectOf } from './payload.js';

export function eventPublished(ctx: BrokerContext, _client: Client, s: DeviceSession, packet: PublishPacket): Promise<unknown> {
  // not async: a payload refused throws to the caller's try at once, and the verb's promise is the
  // answer (an async function's promise and await more per event, issue #26)
  const body = withMqttEventDefaults(jsonObjectOf(packet.payload, ctx.deps.options.jsonDepth));
  // the device as read within the last second needs no turn of the microtask queue (current-device.ts)
  const device = deviceIfFresh(s);
  if (device) return sendEventOf({ deps: ctx.deps, caller: s.caller(), input: { device, body } });
  return currentDevice(ctx, s).then((d) => sendEventOf({ deps: ctx.deps, caller: s.caller(), input: { device: d, body } }));
}
