// Names to addresses, as the system resolver answers them (getaddrinfo). The domain's webhook
// target policy (domain/webhook/target-policy.ts) vets every address a name resolves to when a
// module, data source or report is saved; the lookup itself is I/O, so it comes through this port.

export interface ResolvedAddress {
  address: string;
  /** 4 or 6 */
  family: number;
}

export interface Resolver {
  /** every address of `host`; rejects (with the system's code, e.g. ENOTFOUND) when it has none */
  lookupAll(host: string): Promise<ResolvedAddress[]>;
}
