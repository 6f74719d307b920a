// docs/webhooks.md "Targets": webhooks go to http/https URLs only, and unless `allowPrivateTargets` is
// set, never to loopback, private, link-local, unique-local, CGNAT, multicast, unspecified,
// broadcast or reserved addresses (IPv4-mapped IPv6 forms included). Checked at registration
// (checkTargetUrl) and again on the address actually dialled (guardedLookup), so a name that
// resolved to a public address at registration and to 127.0.0.1 later (DNS rebinding) is refused.
// Here in the domain because two edges apply it: the API to module settings (checks.ts) and the
// worker's client to every socket it dials (worker/webhook/client/guarded-lookup.ts). ipaddr.js
// classifies addresses (pure, no I/O); names are resolved through the Resolver port.

import ipaddr from 'ipaddr.js';
import type { ResolvedAddress, Resolver } from '../../ports/resolver.js';

export class TargetNotAllowedError extends Error {
  override readonly name = 'TargetNotAllowedError';
  readonly code = 'TARGET_NOT_ALLOWED';
}

/**
 * True only for addresses ipaddr.js classes as plain global `unicast`. An allow-list rather than a
 * deny-list: every special range (private, loopback, CGNAT, reserved, benchmarking, 6to4, Teredo,
 * NAT64, site-local, ...) is refused, including ranges added to ipaddr.js later.
 */
export function isAllowedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    // ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d: judge that host.
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    // ::a.b.c.d (deprecated IPv4-compatible, ::/96) is "unicast" to ipaddr.js; refuse it outright.
    else if (v6.parts.slice(0, 6).every((p) => p === 0)) return false;
  }
  return ip.range() === 'unicast';
}

/** a literal IPv4 (dotted quad, as URLs normalise it) or IPv6 address, not a name */
export function isIpLiteral(host: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host);
}

/** URL hostnames keep IPv6 literals in brackets; sockets and ipaddr.js want them bare. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Parses a webhook URL, refusing anything but http and https. */
export function parseTargetUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetNotAllowedError(`webhook URL "${url}" is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TargetNotAllowedError(`webhook URL scheme "${parsed.protocol}" is not allowed: use http or https`);
  }
  return parsed;
}

/**
 * Registration-time check. Throws TargetNotAllowedError (code TARGET_NOT_ALLOWED) for a bad
 * scheme, and unless allowPrivate for a host with any disallowed address or one that does not
 * resolve (a target we cannot vet is refused).
 */
export async function checkTargetUrl(url: string, allowPrivate: boolean, resolver: Resolver): Promise<void> {
  const target = parseTargetUrl(url);
  if (allowPrivate) return;
  const host = bareHost(target.hostname);
  if (isIpLiteral(host)) {
    if (!isAllowedAddress(host)) throw refused(host, host);
    return;
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await resolver.lookupAll(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw new TargetNotAllowedError(`webhook host "${host}" cannot be resolved (${code})`);
  }
  const refusal = refusalOf(host, addresses);
  if (refusal) throw refusal;
  if (addresses.length === 0) throw new TargetNotAllowedError(`webhook host "${host}" has no address`);
}

/**
 * The refusal for the first disallowed address a name resolved to, or undefined when all are
 * allowed: at registration (checkTargetUrl) and at dial time (guardedLookup). An empty answer is
 * each caller's own error (TARGET_NOT_ALLOWED here, ENOTFOUND when dialling).
 */
export function refusalOf(host: string, addresses: readonly { address: string }[]): TargetNotAllowedError | undefined {
  const bad = addresses.find((a) => !isAllowedAddress(a.address));
  return bad ? refused(host, bad.address) : undefined;
}

/** the refusal of a target whose name or address is not public */
function refused(host: string, address: string): TargetNotAllowedError {
  const via = host === address ? '' : ` (resolves to ${address})`;
  return new TargetNotAllowedError(
    `webhook target "${host}"${via} is a loopback, private, link-local or otherwise non-public address; ` + 'set allowPrivateTargets to allow it',
  );
}
