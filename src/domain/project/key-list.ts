// List a project's API keys (admin scope): names, scopes and ids, never a hash or plaintext.
import type { ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import { projectKeyFor } from './access.js';
import type { ApiKey } from './schemas.js';
import { apiKeyView } from './view.js';

export async function listApiKeys({ deps, caller, input: { projectId } }: VerbArgs<StoreOf<'apiKeys' | 'projects'>, ProjectRef>): Promise<ApiKey[]> {
  await projectKeyFor(deps, caller, projectId, 'admin');
  return (await deps.store.apiKeys.list(projectId)).map(apiKeyView);
}
