// Projects and their API keys (docs/concepts.md): the tenants and the credentials of their servers.

export interface ProjectRow {
  id: number;
  name: string;
  /** docs/concepts.md: POST /users without a credential (self-signup) is allowed */
  allowUserSignup: boolean;
  /** docs/concepts.md#accounts: self-signups verify their email address (needs a mail server) */
  verifyEmails: boolean;
  /** docs/concepts.md#commands: which command actions the project accepts */
  commandActions: CommandActions;
  creationTime: string;
}

/** docs/concepts.md#commands: `spec` lowercase actions only; `mode` also MODE's camelCase ones */
export type CommandActions = 'spec' | 'mode';

export interface ApiKeyRow {
  id: string;
  projectId: number;
  name: string;
  scopes: string[];
  keyHash: string;
  creationTime: string;
}

export interface ProjectRepo {
  create(p: { name: string; creationTime: string }): Promise<ProjectRow>;
  get(id: number): Promise<ProjectRow | undefined>;
  list(): Promise<ProjectRow[]>;
  update(id: number, patch: { name?: string; allowUserSignup?: boolean; verifyEmails?: boolean; commandActions?: CommandActions }): Promise<void>;
  count(): Promise<number>;
  /**
   * inside a transaction: waits until no other node is bootstrapping, so nodes that start
   * together on an empty database create the first project once (held until the transaction ends)
   */
  lockFirstStart(): Promise<void>;
}

export interface ApiKeyRepo {
  create(k: ApiKeyRow): Promise<void>;
  getByHash(keyHash: string): Promise<ApiKeyRow | undefined>;
  /** the row when a read cache holds it and may serve it now (else undefined: ask getByHash) */
  peekByHash?(keyHash: string): ApiKeyRow | undefined;
  get(id: string): Promise<ApiKeyRow | undefined>;
  list(projectId: number): Promise<ApiKeyRow[]>;
  delete(id: string): Promise<boolean>;
}
