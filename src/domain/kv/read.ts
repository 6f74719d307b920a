// Reading pairs: one, all (optionally by prefix), and the `reload` sync message.
import type { StoreOf, SystemArgs } from '../deps.js';
import type { KvItem } from '../../ports/store.js';
import type { KvSyncMessage } from '../../ports/bus.js';
import { AppError } from '../errors.js';
import { checkKey } from './set.js';
import type { KvTarget } from './target.js';

export async function getKv({ deps, input: { target, key } }: SystemArgs<StoreOf<'kv'>, { target: KvTarget; key: unknown }>): Promise<KvItem> {
  const k = checkKey(key);
  const item = await deps.store.kv.get(target.scope, target.ownerId, k);
  if (!item) throw new AppError('KEY_NOT_FOUND', { key: k });
  return item;
}

export function listKv({
  deps,
  input: { target, keyPrefix },
}: SystemArgs<StoreOf<'kv'>, { target: KvTarget; keyPrefix?: string }>): Promise<{ rev: number; items: KvItem[] }> {
  // the store's promise itself, not one more around it (every device connect reloads its store)
  return deps.store.kv.list(target.scope, target.ownerId, keyPrefix || undefined);
}

/** docs/devices.md#kv-sync: the whole store, sent on subscribe and on a device's `reload` */
export async function reloadMessage({ deps, input: { target } }: SystemArgs<StoreOf<'kv'>, { target: KvTarget }>): Promise<KvSyncMessage> {
  const { rev, items } = await listKv({ deps, input: { target } });
  return { action: 'reload', rev, numItems: items.length, items };
}
