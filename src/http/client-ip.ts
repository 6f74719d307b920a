// The client's address, as rate limits, the access log and device events see it. By default the
// peer of the socket. Behind a reverse proxy (HEARTH_TRUSTED_PROXIES) the peer is the proxy: its
// X-Forwarded-For is believed, read from the right (each proxy appends the peer it saw), and the
// first address that is not a trusted proxy is the client. A header from an untrusted peer is
// ignored: anybody can send one.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

export interface TrustedProxies {
  /** the client behind `peer` given the X-Forwarded-For header(s) of the request */
  clientOf(peer: string, forwardedFor: string | string[] | undefined): string;
  /** true when `peer` is one of the trusted proxies */
  trusts(peer: string): boolean;
}

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`, how a dual-stack socket reports IPv4) as IPv4 */
function parse(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const s = text.trim();
  if (!ipaddr.IPv4.isValidFourPartDecimal(s) && !ipaddr.IPv6.isValid(s)) return undefined;
  const a = ipaddr.parse(s);
  return a.kind() === 'ipv6' && (a as ipaddr.IPv6).isIPv4MappedAddress() ? (a as ipaddr.IPv6).toIPv4Address() : a;
}

/**
 * `list`: addresses and CIDRs (checked by the config schema). Empty: undefined, and the caller
 * keeps reading the socket's peer (the default, which costs nothing per request).
 */
export function createTrustedProxies(list: readonly string[]): TrustedProxies | undefined {
  if (list.length === 0) return undefined;
  const ranges: Range[] = list.map((entry) => {
    if (entry.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(entry);
      return addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
        ? [(addr as ipaddr.IPv6).toIPv4Address(), Math.max(0, bits - 96)]
        : [addr, bits];
    }
    const addr = parse(entry)!;
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  });
  const trusted = (a: ipaddr.IPv4 | ipaddr.IPv6) => ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net as never, bits));
  return {
    trusts(peer) {
      const a = parse(peer);
      return a !== undefined && trusted(a);
    },
    clientOf(peer, forwardedFor) {
      const peerAddr = parse(peer);
      if (!peerAddr || !trusted(peerAddr) || forwardedFor === undefined) return peer;
      const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',');
      let client = peer;
      for (let i = hops.length - 1; i >= 0; i--) {
        const hop = hops[i].trim();
        if (hop === '') continue;
        const addr = parse(hop);
        // a hop that is not an address was not written by a proxy we trust: stop at the last one
        if (!addr) return client;
        client = addr.toString();
        if (!trusted(addr)) return client;
      }
      // every hop is a trusted proxy: the leftmost is as far as we can see
      return client;
    },
  };
}

/** the client address of a Node request (WebSocket upgrades in the broker use this too) */
export function requestClientIp(req: IncomingMessage, proxies: TrustedProxies | undefined): string | undefined {
  const peer = req.socket?.remoteAddress;
  if (proxies === undefined || peer === undefined) return peer;
  return proxies.clientOf(peer, req.headers['x-forwarded-for']);
}

/**
 * The client address of an API request: the peer address read from the Node socket (what
 * @hono/node-server's getConnInfo reads, without building its object on every request), or the
 * client a trusted proxy forwarded for; `app.request()` in tests has no socket.
 */
export function clientIp(c: Context): string {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  const peer = incoming?.socket?.remoteAddress ?? '127.0.0.1';
  const proxies = (c.get('deps') as { trustedProxies?: TrustedProxies } | undefined)?.trustedProxies;
  if (proxies === undefined) return peer;
  return proxies.clientOf(peer, incoming ? incoming.headers['x-forwarded-for'] : c.req.header('x-forwarded-for'));
}
