// SQLite re-prepares a statement whose LIMIT is a bound parameter every time it runs (its planner
// reads the bound value; 3.53, the one better-sqlite3 12 bundles): a one-row read by index on a
// 5,000-row table took 9 to 16 µs with `limit ?` against 1.4 to 1.9 with `limit 1` (better-sqlite3
// alone, 200,000 runs). Every page of a list (`?limit=`) and every bounded claim paid it. So on
// SQLite a whole-number LIMIT that Kysely would bind is written into the SQL text instead: each
// page size is then a statement of its own, prepared once (statements.ts keeps at most 500, least
// recently used out). OFFSET stays bound: it does not make SQLite re-prepare.
import {
  LimitNode,
  OperationNodeTransformer,
  ValueNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

class InlineLimits extends OperationNodeTransformer {
  protected override transformLimit(node: LimitNode): LimitNode {
    const { limit } = node;
    if (ValueNode.is(limit) && !limit.immediate && Number.isSafeInteger(limit.value) && (limit.value as number) >= 0) {
      return LimitNode.create(ValueNode.createImmediate(limit.value));
    }
    return super.transformLimit(node);
  }
}

/** writes whole-number LIMITs into the SQL text (SQLite only: PostgreSQL plans bound LIMITs once) */
export class InlineLimitPlugin implements KyselyPlugin {
  private readonly transformer = new InlineLimits();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
