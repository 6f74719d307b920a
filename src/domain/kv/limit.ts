// The store refuses a new key beyond the keys-per-store limit with its own KvKeyLimitError, and a
// write that would make the store's `reload` message larger than limits.kvStoreBytes with
// KvStoreBytesError (adapters know nothing of the domain's reasons); callers see LIMIT_EXCEEDED
// (docs/devices.md#limits).
import { KvKeyLimitError, KvStoreBytesError } from '../../ports/store.js';
import { AppError } from '../errors.js';

/** for `.catch()` on a kv.set: the refusal as the reason users see, anything else unchanged */
export function asLimitExceeded(e: unknown): never {
  if (e instanceof KvKeyLimitError) throw new AppError('LIMIT_EXCEEDED', { limit: e.maxKeys, what: 'keys per store' });
  if (e instanceof KvStoreBytesError) throw new AppError('LIMIT_EXCEEDED', { limit: e.maxBytes, bytes: e.bytes, what: 'bytes per store (its reload message)' });
  throw e;
}
