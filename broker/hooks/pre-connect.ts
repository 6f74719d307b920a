// Aedes preConnect: client ids are namespaced by the device named in the CONNECT, so one device
// can never take over (MQTT-3.1.4-2) another device's session by reusing its client id, nor
// learn that the id is in use. Authentication then proves the username: a forged username fails
// there, before the id is ever registered. An empty client id stays empty: Aedes assigns a
// random one, unique anyway.
import type { Client, ConnectPacket } from 'aedes';

const DEVICE_ID = /^[1-9][0-9]{0,15}$/;

/** the longest prefix we add: 16 digits and a slash, on top of MQTT 3.1's 23 characters */
export const CLIENT_ID_PREFIX_MAX = 17;

export function preConnect(_client: Client, packet: ConnectPacket, done: (err: Error | null, ok: boolean) => void): void {
  if (packet.clientId && typeof packet.username === 'string' && DEVICE_ID.test(packet.username)) {
    packet.clientId = `${packet.username}/${packet.clientId}`;
  }
  done(null, true);
}
