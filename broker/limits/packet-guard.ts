// Two checks on every MQTT connection's packet parser (mqtt-packet, which Aedes owns):
// - docs/api.md#limits: the packet-size cap is enforced from the fixed header. The parser learns the
//   remaining length before it buffers the body; a packet declaring more than the cap fails
//   right there, so a client announcing 256 MB is cut off after a few bytes and memory stays
//   flat. (Aedes has no option for it; mqtt-packet has none for MQTT 3.1.1.)
// - docs/devices.md#mqtt: granted QoS is min(asked, 1). SUBSCRIBE packets are lowered before Aedes handles
//   them, because Aedes reports in the SUBACK the QoS asked, whatever authorizeSubscribe says.
// Both hook parser internals (`_parseLength`, `_emitError`, the `packet` event): the start-up
// check below fails loudly if an upgrade of Aedes or mqtt-packet moves them.
import type { Client } from 'aedes';

interface ParserInternals {
  packet: { length: number; cmd?: string };
  _parseLength(): boolean;
  _emitError(err: Error): void;
  prependListener(event: 'packet', fn: (packet: SubscribeLike) => void): void;
  hearthMaxBytes?: number;
}
interface SubscribeLike {
  cmd: string;
  subscriptions?: { qos: number }[];
}

export class PacketTooLargeError extends Error {
  override name = 'PacketTooLargeError';
}

let parseLength: (() => boolean) | undefined;

function guardedParseLength(this: ParserInternals): boolean {
  const ok = parseLength!.call(this);
  if (ok && this.packet.length > this.hearthMaxBytes!) {
    this._emitError(new PacketTooLargeError(`${this.packet.cmd ?? 'packet'} of ${this.packet.length} bytes exceeds the ${this.hearthMaxBytes}-byte limit`));
    return false;
  }
  return ok;
}

function grantAtMostQos1(packet: SubscribeLike): void {
  if (packet.cmd !== 'subscribe' || !packet.subscriptions) return;
  for (const sub of packet.subscriptions) if (sub.qos > 1) sub.qos = 1;
}

/** call right after aedes.handle(), before the first byte is parsed */
export function guardClient(client: Client, maxPacketBytes: number): void {
  const parser = (client as unknown as { _parser?: ParserInternals })._parser;
  const proto = parser && (Object.getPrototypeOf(parser) as Partial<ParserInternals>);
  if (!parser || typeof proto?._parseLength !== 'function' || typeof parser._emitError !== 'function') {
    throw new Error('packet guard: the Aedes client has no mqtt-packet parser where expected (Aedes or mqtt-packet upgraded?)');
  }
  parseLength ??= proto._parseLength;
  parser.hearthMaxBytes = maxPacketBytes;
  parser._parseLength = guardedParseLength;
  parser.prependListener('packet', grantAtMostQos1);
}
