// Checks on every MQTT connection's packet parser (mqtt-packet, which Aedes owns):
// - docs/api.md#limits: the packet-size cap is enforced from the fixed header. The parser learns the
//   remaining length before it buffers the body; a packet declaring more than the cap fails
//   right there, so a client announcing 256 MB is cut off after a few bytes and memory stays
//   flat. (Aedes has no option for it; mqtt-packet has none for MQTT 3.1.1.)
// - docs/devices.md#mqtt: granted QoS is min(asked, 1). SUBSCRIBE packets are lowered as they are
//   parsed, before Aedes handles them, because Aedes reports in the SUBACK the QoS asked,
//   whatever authorizeSubscribe says.
// Both are put once on the parser's prototype and act only on a parser marked with its cap
// (hearthMaxBytes): nothing per connection but that one field (memory per device at fleet size,
// issue #25; a per-connection hook cost a function property and a listener array each).
// The parser's buffer list becomes a plain BufferList: mqtt-packet makes it a whole duplex stream
// (bl's BufferListStream, with its readable and writable state) and only ever calls the list's
// methods on it; and its list of states (four method names) is one list shared by all parsers.
// All of it hooks parser internals (`_parseLength`, `_parseSubscribe`, `_emitError`, `_list`):
// the check below fails loudly if an upgrade of Aedes, mqtt-packet or bl moves them.
import type { Client } from 'aedes';

interface ParserInternals {
  packet: { length: number; cmd?: string; subscriptions?: { qos: number }[] };
  _list: { length: number; constructor: { BufferList?: new () => unknown } };
  _states: string[];
  _parseLength(): boolean;
  _parseSubscribe(): unknown;
  _emitError(err: Error): void;
  hearthMaxBytes?: number;
}

export class PacketTooLargeError extends Error {
  override name = 'PacketTooLargeError';
}

/**
 * the prototypes already hooked (one mqtt-packet in practice), each with the list of parser states
 * of its first parser: every later parser gets that one, not a copy of its own (it is only read)
 */
const hooked = new WeakMap<object, string[]>();

function hook(proto: ParserInternals, states: string[]): void {
  const parseLength = proto._parseLength;
  const parseSubscribe = proto._parseSubscribe;
  proto._parseLength = function (this: ParserInternals): boolean {
    const ok = parseLength.call(this);
    const max = this.hearthMaxBytes;
    if (ok && max !== undefined && this.packet.length > max) {
      this._emitError(new PacketTooLargeError(`${this.packet.cmd ?? 'packet'} of ${this.packet.length} bytes exceeds the ${max}-byte limit`));
      return false;
    }
    return ok;
  };
  proto._parseSubscribe = function (this: ParserInternals): unknown {
    const r = parseSubscribe.call(this);
    if (this.hearthMaxBytes !== undefined) for (const sub of this.packet.subscriptions ?? []) if (sub.qos > 1) sub.qos = 1;
    return r;
  };
  hooked.set(proto, states);
}

/** call right after aedes.handle(), before the first byte is parsed */
export function guardClient(client: Client, maxPacketBytes: number): void {
  const parser = (client as unknown as { _parser?: ParserInternals })._parser;
  const proto = parser && (Object.getPrototypeOf(parser) as Partial<ParserInternals>);
  const BufferList = parser?._list?.constructor?.BufferList;
  if (
    !parser ||
    typeof proto?._parseLength !== 'function' ||
    typeof proto._parseSubscribe !== 'function' ||
    typeof parser._emitError !== 'function' ||
    typeof BufferList !== 'function' ||
    !Array.isArray(parser._states) ||
    parser._list.length !== 0
  ) {
    throw new Error('packet guard: the Aedes client has no mqtt-packet parser where expected (Aedes, mqtt-packet or bl upgraded?)');
  }
  const states = hooked.get(proto);
  if (!states) hook(proto as ParserInternals, parser._states);
  else if (states.length === parser._states.length && states.every((x, i) => x === parser._states[i])) parser._states = states;
  parser.hearthMaxBytes = maxPacketBytes;
  parser._list = new BufferList() as ParserInternals['_list'];
}
