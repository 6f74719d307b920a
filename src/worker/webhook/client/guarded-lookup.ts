// The dial-time half of the webhook target policy (domain/webhook/target-policy.ts, docs/webhooks.md
// "Targets"): a `lookup` for http.request that resolves like dns.lookup, then refuses the
// connection if any address is disallowed, so the check applies to exactly what the socket will
// dial (a name that turned private after registration, DNS rebinding, is refused here).
import dns from 'node:dns';
import { refusalOf } from '../../../domain/webhook/target-policy.js';

/** handles both call shapes (`all: true` from autoSelectFamily, and the single-address form) */
export const guardedLookup = (
  hostname: string,
  options: dns.LookupOptions,
  callback: (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void,
): void => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '');
    const refusal = refusalOf(hostname, addresses);
    if (refusal) return callback(refusal, '');
    if (addresses.length === 0) {
      return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
};
