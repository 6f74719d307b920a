// Create a project API key (docs/api.md#credentials, docs/concepts.md): the plaintext is returned once; only its hash is kept.
import type { Body, Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import { hashToken } from '../auth/tokens.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { projectKeyFor } from './access.js';
import { CreateApiKeyBodySchema, type CreatedApiKey } from './schemas.js';
import { apiKeyView } from './view.js';

export async function createApiKey({
  deps,
  caller,
  input: { projectId, body },
}: VerbArgs<Pick<Deps, 'clock' | 'random'> & StoreOf<'apiKeys' | 'logs' | 'projects'>, ProjectRef & Body>): Promise<CreatedApiKey> {
  await projectKeyFor(deps, caller, projectId, 'admin');
  const { name, scopes } = parseInput(CreateApiKeyBodySchema, body);
  const key = deps.random.token('pk.');
  const row = { id: deps.random.id(), projectId, name, scopes, keyHash: hashToken(key), creationTime: deps.clock.now().toISOString() };
  await deps.store.apiKeys.create(row);
  await writeLog({
    deps,
    input: { projectId, caller, level: 'info', source: 'api', text: `project key ${row.id} "${name}" created with scopes ${scopes.join(',')}` },
  });
  return { ...apiKeyView(row), key };
}
