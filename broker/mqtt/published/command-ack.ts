// `/devices/{own}/commandAck` (docs/devices.md#command-outbox): the device's answer to an outbox
// command, `{id, status?, result?}`; the same verb as POST .../commands/{id}/ack. An answer to an
// unknown, foreign or finished command changes nothing: its AppError makes authorize-publish.ts
// drop and log the publish, the connection stays.
import type { Client, PublishPacket } from 'aedes';
import { ackCommand } from '../../../src/domain/command/index.js';
import type { BrokerContext } from '../../context.js';
import type { DeviceSession } from '../../session.js';
import { jsonObjectOf } from './payload.js';

export async function commandAckPublished(ctx: BrokerContext, _client: Client, s: DeviceSession, packet: PublishPacket): Promise<void> {
  await ackCommand({
    deps: ctx.deps,
    caller: s.caller(),
    input: { deviceId: s.device.id, body: jsonObjectOf(packet.payload, ctx.deps.options.jsonDepth) },
  });
}
