// Who is calling, once their credential is resolved (docs/api.md#credentials).
export const SCOPES = ['admin', 'devices', 'commands', 'events', 'kv', 'logs', 'users', 'homes', 'modules', 'data', 'reports'] as const;
export type Scope = (typeof SCOPES)[number];

export type Caller =
  | { type: 'nobody'; ip?: string }
  | { type: 'project key'; projectId: number; keyId: string; keyName: string; scopes: string[]; ip?: string }
  | { type: 'user'; projectId: number; userId: number; tokenHash: string; canCreateDevices: boolean; ip?: string }
  | { type: 'device'; projectId: number; deviceId: number; deviceClass: string; ip?: string };

export type CallerType = Caller['type'];

export const NOBODY: Caller = { type: 'nobody' };

/** a stable identity for rate limiting and logs */
export function callerKey(c: Caller): string | undefined {
  switch (c.type) {
    case 'project key':
      return `k:${c.keyId}`;
    case 'user':
      return `u:${c.userId}`;
    case 'device':
      return `d:${c.deviceId}`;
    default:
      return undefined;
  }
}

export function callerProjectId(c: Caller): number | undefined {
  return c.type === 'nobody' ? undefined : c.projectId;
}

/** docs/operations.md#logs caller object of the general log */
export function logCaller(c: Caller): { id?: string | number; type: string; name?: string; sudoer?: boolean } | null {
  switch (c.type) {
    case 'project key':
      return { id: c.keyId, type: 'projectKey', name: c.keyName, sudoer: c.scopes.includes('admin') };
    case 'user':
      return { id: c.userId, type: 'user', sudoer: false };
    case 'device':
      return { id: c.deviceId, type: 'device', name: c.deviceClass, sudoer: false };
    default:
      return null;
  }
}
