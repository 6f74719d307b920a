// Revoke a project API key: the row goes (so the next request with it is 401), then the bus tells
// every node to close live connections authenticated by it (docs/api.md#credentials).
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { projectKeyFor } from './access.js';

export async function revokeApiKey({
  deps,
  caller,
  input: { projectId, keyId },
}: VerbArgs<Pick<Deps, 'bus' | 'clock'> & StoreOf<'apiKeys' | 'logs' | 'projects'>, { projectId: number; keyId: string }>): Promise<void> {
  await projectKeyFor(deps, caller, projectId, 'admin');
  const key = await deps.store.apiKeys.get(keyId);
  if (!key || key.projectId !== projectId) throw new AppError('KEY_NOT_FOUND', { keyId });
  await deps.store.apiKeys.delete(keyId);
  await deps.bus.publish('revoke', { kind: 'projectKey', keyId });
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text: `project key ${keyId} "${key.name}" revoked` } });
}
