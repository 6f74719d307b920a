// Lookups every authenticated request makes (resolve a key, load the device) pay Kysely's
// per-call cost — build the query tree, run the camelCase transform, compile to SQL — which was
// as much as executing them (`npm run bench -- api`). A lookup whose shape never changes is
// compiled once, on first use, with a stand-in value, and then run with the real parameters in
// the same order. Rows still go through the plugins (camelCase mapping) on the way out.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';

export function precompiled<Row>(db: Kysely<any>, build: () => Compilable<Row>): (...parameters: unknown[]) => Promise<Row | undefined> {
  let compiled: CompiledQuery<Row> | undefined;
  return async (...parameters) => {
    compiled ??= build().compile();
    if (parameters.length !== compiled.parameters.length) throw new Error(`precompiled query takes ${compiled.parameters.length} parameters, got ${parameters.length}`);
    const r = await db.executeQuery<Row>({ ...compiled, parameters });
    return r.rows[0];
  };
}
