// Provisioning tokens: single-use credentials with which a device registers itself into a home.

export interface ProvisioningTokenRow {
  tokenHash: string;
  projectId: number;
  homeId: number;
  deviceClass: string;
  deviceTag: string | null;
  expirationTime: string;
  usedTime: string | null;
}

export interface ProvisioningTokenRepo {
  create(t: ProvisioningTokenRow): Promise<void>;
  /** marks the token used if it is unused and unexpired at `now`; returns it, else undefined */
  consume(tokenHash: string, now: string): Promise<ProvisioningTokenRow | undefined>;
}
