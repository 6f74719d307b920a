// Input parsed at the top of each verb: a valibot failure is INVALID_PARAMETERS with the issues
// in the same shape the HTTP edge uses (`{path, message}`, docs/api.md#errors).
import * as v from 'valibot';
import { AppError } from '../errors.js';

export function parseInput<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (r.success) return r.output;
  throw new AppError('INVALID_PARAMETERS', {
    issues: r.issues.map((i) => ({ path: (i.path ?? []).map((p) => String(p.key)).join('.'), message: i.message })),
  });
}
