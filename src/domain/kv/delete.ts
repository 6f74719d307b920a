// Delete a pair (deleteKeyValuePair; also device `delete` sync messages).
import type { EmitDeps, StoreOf, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { isServiceKey } from './schemas.js';
import { checkKey } from './set.js';
import { announceKvChange } from './announce.js';
import type { KvTarget } from './target.js';

export async function deleteKv({
  deps,
  input,
}: SystemArgs<EmitDeps & StoreOf<'kv'>, { target: KvTarget; key: unknown; asService?: boolean }>): Promise<{ rev: number }> {
  const { target } = input;
  const key = checkKey(input.key);
  // docs/api.md#device-operations rule 8: a pair in use elsewhere (held by the service) cannot be deleted
  if (isServiceKey(key) && !input.asService) {
    if (await deps.store.kv.get(target.scope, target.ownerId, key)) throw new AppError('KEY_IN_USE', { key });
  }
  const r = await deps.store.kv.delete(target.scope, target.ownerId, key);
  if (!r) throw new AppError('KEY_NOT_FOUND', { key });
  await announceKvChange(deps, target, { action: 'delete', rev: r.rev, key });
  return r;
}
