// Create or update a pair (createUpdateKeyValuePair; also device `set` sync messages).
import * as v from 'valibot';
import type { Deps, EmitDeps, StoreOf, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { KvKeySchema, KvValueSchema, isServiceKey } from './schemas.js';
import { announceKvChange } from './announce.js';
import type { KvTarget } from './target.js';
import { asLimitExceeded } from './limit.js';

export interface SetKvInput {
  /** whose store: the caller's access was checked when the target was built (target.ts) */
  target: KvTarget;
  key: unknown;
  value: unknown;
  /** the service itself may write `sys:` keys; clients may not */
  asService?: boolean;
}

export function checkKey(key: unknown): string {
  const r = v.safeParse(KvKeySchema, key);
  if (!r.success) throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'key', message: r.issues[0].message }] });
  return r.output;
}

export async function setKv({ deps, input }: SystemArgs<EmitDeps & Pick<Deps, 'limits'> & StoreOf<'kv'>, SetKvInput>): Promise<{ rev: number }> {
  const { target } = input;
  const key = checkKey(input.key);
  if (!v.is(KvValueSchema, input.value)) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'value', message: 'value is required and may not be null' }] });
  }
  const size = Buffer.byteLength(JSON.stringify(input.value));
  if (size > deps.limits.kvValueBytes) {
    throw new AppError('INVALID_PARAMETERS', { issues: [{ path: 'value', message: `value is ${size} bytes; the limit is ${deps.limits.kvValueBytes}` }] });
  }
  if (isServiceKey(key) && !input.asService) throw new AppError('PERMISSION_DENIED', { key, message: 'sys: keys are held by the service' });
  const now = deps.clock.now().toISOString();
  const { rev } = await deps.store.kv
    .set(target.scope, target.ownerId, key, input.value, now, deps.limits.kvKeysPerStore, deps.limits.kvStoreBytes)
    .catch(asLimitExceeded);
  await announceKvChange(deps, target, { action: 'set', rev, key, value: input.value });
  return { rev };
}
