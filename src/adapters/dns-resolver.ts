// The Resolver port on the system resolver (node:dns lookup, i.e. getaddrinfo: /etc/hosts and DNS,
// as the webhook client's sockets resolve), so a name is vetted as it will be dialled.
import dns from 'node:dns';
import type { Resolver } from '../ports/resolver.js';

export const systemResolver: Resolver = {
  lookupAll: (host) => dns.promises.lookup(host, { all: true }),
};
