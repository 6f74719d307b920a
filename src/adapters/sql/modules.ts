// Smart modules (docs/webhooks.md, docs/timeseries.md): one row per module, each webhook's (or the tsdb) settings as a JSON column so the
// event fan-out and the worker read a module in one query.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from './schema.js';
import type { ModulePatch, ModuleRow, ModuleRepo } from '../../ports/store.js';
import { changedRow, deletedRow, firstOf, fromJson, insertedRow, rowsOf, toJson } from './util.js';

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

function toRow(r: Selectable<ModulesTable>): ModuleRow {
  return {
    projectId: r.projectId,
    id: r.id,
    moduleType: r.moduleType === 'tsdb' ? 'tsdb' : 'webhooks',
    description: r.description,
    tsdb: fromJson(r.tsdb),
    eventWebhook: fromJson(r.eventWebhook),
    commandWebhook: fromJson(r.commandWebhook),
    eventDisabled: fromJson(r.eventDisabled),
    commandDisabled: fromJson(r.commandDisabled),
    creationTime: r.creationTime,
    modificationTime: r.modificationTime,
  };
}

/** the description and the JSON columns a row or a patch gives; a field a patch leaves out stays out of the UPDATE */
function toColumns(m: ModuleRow | ModulePatch): Partial<ModulesTable> {
  const c: Partial<ModulesTable> = {};
  if (m.description !== undefined) c.description = m.description;
  if ('tsdb' in m && m.tsdb !== undefined) c.tsdb = toJson(m.tsdb);
  if (m.eventWebhook !== undefined) c.eventWebhook = toJson(m.eventWebhook);
  if (m.commandWebhook !== undefined) c.commandWebhook = toJson(m.commandWebhook);
  if (m.eventDisabled !== undefined) c.eventDisabled = toJson(m.eventDisabled);
  if (m.commandDisabled !== undefined) c.commandDisabled = toJson(m.commandDisabled);
  return c;
}

export function moduleRepo(base: Kysely<Database>): ModuleRepo {
  const db = base as unknown as ModulesDb;
  return {
    create: (m) =>
      insertedRow(
        db.insertInto('modules').values({
          projectId: m.projectId,
          id: m.id,
          moduleType: m.moduleType,
          creationTime: m.creationTime,
          modificationTime: m.modificationTime,
          ...toColumns(m),
        }),
        ['projectId', 'id'],
      ),
    get: (projectId, id) => firstOf(db.selectFrom('modules').selectAll().where('projectId', '=', projectId).where('id', '=', id), toRow),
    list: (projectId) => rowsOf(db.selectFrom('modules').selectAll().where('projectId', '=', projectId).orderBy('id'), toRow),
    async getMany(keys) {
      if (keys.length === 0) return [];
      return rowsOf(
        db
          .selectFrom('modules')
          .selectAll()
          .where((e) => e.or(keys.map((k) => e.and([e('projectId', '=', k.projectId), e('id', '=', k.id)])))),
        toRow,
      );
    },
    async update(projectId, id, patch) {
      const values: Partial<ModulesTable> = { modificationTime: patch.modificationTime, ...toColumns(patch) };
      return changedRow(db.updateTable('modules').set(values).where('projectId', '=', projectId).where('id', '=', id));
    },
    delete: (projectId, id) => deletedRow(db.deleteFrom('modules').where('projectId', '=', projectId).where('id', '=', id)),
  };
}
