// MQTT over TCP (docs/devices.md#mqtt): each accepted socket goes to Aedes with the packet guard in place.
import type { Socket } from 'node:net';
import type { BrokerContext } from '../context.js';
import { guardClient } from '../limits/packet-guard.js';
import { boundMqttOutput } from '../live/output-bound.js';

export function tcpHandler(ctx: BrokerContext): (socket: Socket) => void {
  return (socket) => {
    // commands are small and latency matters more than packing them
    socket.setNoDelay(true);
    const client = ctx.aedes.handle(socket);
    guardClient(client, ctx.deps.options.mqttPacketBytes);
    boundMqttOutput(ctx, client);
  };
}
