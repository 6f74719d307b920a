// The store refuses a new key beyond the keys-per-store limit with its own KvKeyLimitError
// (adapters know nothing of the domain's reasons); callers see LIMIT_EXCEEDED, as always.
import { KvKeyLimitError } from '../../ports/store.js';
import { AppError } from '../errors.js';

/** for `.catch()` on a kv.set: the refusal as the reason users see, anything else unchanged */
export function asLimitExceeded(e: unknown): never {
  if (e instanceof KvKeyLimitError) throw new AppError('LIMIT_EXCEEDED', { limit: e.maxKeys, what: 'keys per store' });
  throw e;
}
