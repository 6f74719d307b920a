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

export async function eventPublished(ctx: BrokerContext, _client: Client, s: DeviceSession, packet: PublishPacket): Promise<void> {
  const body = withMqttEventDefaults(jsonObjectOf(packet.payload, ctx.deps.options.jsonDepth));
  // the device as read within the last second needs no turn of the microtask queue (current-device.ts)
  const device = deviceIfFresh(s) ?? (await currentDevice(ctx, s));
  await sendEventOf({ deps: ctx.deps, caller: s.caller(), input: { device, body } });
}
