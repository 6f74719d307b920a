// Key-value pairs (docs/concepts.md#key-value-stores, docs/devices.md#kv-sync).
import * as v from 'valibot';
import { TimeSchema } from '../validate.js';

// docs/concepts.md#key-value-stores: 1 to 256 characters, `^[a-zA-Z0-9]([a-zA-Z0-9\-_\:]*[a-zA-Z0-9])*$`. Written here in
// an equivalent form without the nested quantifier: the documented form backtracks exponentially
// (a 28-character key ending in `!` took 6 s of CPU).
export const KV_KEY_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-_:]*[a-zA-Z0-9])?$/;

export const KvKeySchema = v.pipe(
  v.string('key must be a string'),
  v.minLength(1, 'key must be 1 to 256 characters'),
  v.maxLength(256, 'key must be 1 to 256 characters'),
  v.regex(KV_KEY_PATTERN, 'key must match ^[a-zA-Z0-9]([a-zA-Z0-9\\-_\\:]*[a-zA-Z0-9])*$'),
  v.description('Key: 1 to 256 letters, digits, `-`, `_`, `:`, starting and ending with a letter or digit (`sys:` keys belong to the service)'),
);

/** any JSON value but null (docs/devices.md#kv-sync); the size limit is checked by the verb */
export const KvValueSchema = v.custom<string | number | boolean | unknown[] | Record<string, unknown>>(
  (x) => x !== null && x !== undefined,
  'value is required and may not be null',
);

export const KvPutBodySchema = v.object({ value: KvValueSchema });

export const KvItemSchema = v.object({
  key: v.string(),
  value: v.unknown(),
  modificationTime: TimeSchema,
});

/** keys the service holds (`sys:logRequest`, docs/concepts.md#log-requests): clients may read them, not change them */
export const isServiceKey = (key: string): boolean => key.startsWith('sys:');
