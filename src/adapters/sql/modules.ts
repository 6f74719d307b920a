// Smart modules (docs/webhooks.md, docs/timeseries.md): one row per module, each webhook's (or the tsdb) settings as a JSON column so the
// event fan-out and the worker read a module in one query.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';
import type { ModuleRow, ModuleRepo } from '../../ports/store.js';

export interface ModulesTable {
  projectId: number;
  id: string;
  moduleType: string;
  description: string | null;
  tsdb: string | null;
  eventWebhook: string | null;
  commandWebhook: string | null;
  eventDisabled: string | null;
  commandDisabled: string | null;
  creationTime: string;
  modificationTime: string;
}
export type ModulesDb = Kysely<Database & { modules: ModulesTable }>;

const json = (x: unknown): string | null => (x === null || x === undefined ? null : JSON.stringify(x));
const parsed = <T>(s: string | null): T | null => (s === null ? null : (JSON.parse(s) as T));

function toRow(r: Selectable<ModulesTable>): ModuleRow {
  return {
    projectId: r.projectId,
    id: r.id,
    moduleType: r.moduleType === 'tsdb' ? 'tsdb' : 'webhooks',
    description: r.description,
    tsdb: parsed(r.tsdb),
    eventWebhook: parsed(r.eventWebhook),
    commandWebhook: parsed(r.commandWebhook),
    eventDisabled: parsed(r.eventDisabled),
    commandDisabled: parsed(r.commandDisabled),
    creationTime: r.creationTime,
    modificationTime: r.modificationTime,
  };
}

export function moduleRepo(base: Kysely<Database>): ModuleRepo {
  const db = base as unknown as ModulesDb;
  return {
    async create(m) {
      const r = await db
        .insertInto('modules')
        .values({
          projectId: m.projectId,
          id: m.id,
          moduleType: m.moduleType,
          description: m.description,
          tsdb: json(m.tsdb ?? null),
          eventWebhook: json(m.eventWebhook),
          commandWebhook: json(m.commandWebhook),
          eventDisabled: json(m.eventDisabled),
          commandDisabled: json(m.commandDisabled),
          creationTime: m.creationTime,
          modificationTime: m.modificationTime,
        })
        .onConflict((oc) => oc.columns(['projectId', 'id']).doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async get(projectId, id) {
      const r = await db.selectFrom('modules').selectAll().where('projectId', '=', projectId).where('id', '=', id).executeTakeFirst();
      return r && toRow(r);
    },
    async list(projectId) {
      const rows = await db.selectFrom('modules').selectAll().where('projectId', '=', projectId).orderBy('id').execute();
      return rows.map(toRow);
    },
    async getMany(keys) {
      if (keys.length === 0) return [];
      const rows = await db
        .selectFrom('modules')
        .selectAll()
        .where((e) => e.or(keys.map((k) => e.and([e('projectId', '=', k.projectId), e('id', '=', k.id)]))))
        .execute();
      return rows.map(toRow);
    },
    async update(projectId, id, patch) {
      const values: Partial<ModulesTable> = { modificationTime: patch.modificationTime };
      if (patch.description !== undefined) values.description = patch.description;
      if (patch.eventWebhook !== undefined) values.eventWebhook = json(patch.eventWebhook);
      if (patch.commandWebhook !== undefined) values.commandWebhook = json(patch.commandWebhook);
      if (patch.eventDisabled !== undefined) values.eventDisabled = json(patch.eventDisabled);
      if (patch.commandDisabled !== undefined) values.commandDisabled = json(patch.commandDisabled);
      const r = await db.updateTable('modules').set(values).where('projectId', '=', projectId).where('id', '=', id).executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    async delete(projectId, id) {
      const r = await db.deleteFrom('modules').where('projectId', '=', projectId).where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
  };
}
