// Where a delivery goes, by its kind: the event or command webhook of a smart module (docs/webhooks.md),
// a `webhook` data source (docs/concepts.md#data-sources, kind `data`, moduleId = the source id), or a report's
// webhook destination (docs/concepts.md#reports, kind `report`, moduleId = the report id). All are read when
// the delivery is sent, so a changed URL or a rotated key applies to retries too.
import type { ModuleRow, Store } from '../../../ports/store.js';
import type { Clock } from '../../../ports/clock.js';
import type { DeliveryRow } from '../../../ports/queue.js';
import type { EventPipeline } from '../../../ports/pipeline.js';
import type { Bus } from '../../../ports/bus.js';
import { noteDataDelivery } from '../../../domain/data/health.js';
import type { Target } from '../sender/request.js';

/** a target, or why there is none (the delivery is dropped, nothing sent) */
export type Resolution = { target: Target } | { drop: string };

type Deps = { store: Store; bus: Bus; clock: Clock; pipeline: EventPipeline };

/**
 * A module from the per-project cache the event fan-out uses (no query per delivery). The cache
 * may be up to TARGETS_TTL_MS behind another node's changes: whenever it would make us drop the
 * delivery (module or webhook missing or disabled), the store is asked instead.
 */
async function moduleOf(deps: Deps, row: DeliveryRow): Promise<ModuleRow | undefined> {
  const cached = (await deps.pipeline.projectModules(row.projectId)).find((m) => m.id === row.moduleId);
  const usable = cached && (row.kind === 'event' ? cached.eventWebhook && !cached.eventDisabled : cached.commandWebhook && !cached.commandDisabled);
  return usable ? cached : deps.store.modules.get(row.projectId, row.moduleId);
}

async function moduleTarget(deps: Deps, row: DeliveryRow): Promise<Resolution> {
  const m = await moduleOf(deps, row);
  if (!m) return { drop: 'MODULE_NOT_FOUND' };
  const event = row.kind === 'event';
  const hook = event ? m.eventWebhook : m.commandWebhook;
  if (!hook) return { drop: 'WEBHOOK_REMOVED' };
  if ((event ? m.eventDisabled : m.commandDisabled) !== null) return { drop: 'WEBHOOK_DISABLED' };
  const target: Target = { url: hook.url, keySealed: hook.keySealed };
  if (event && m.eventWebhook && (m.eventWebhook.headers || m.eventWebhook.body)) {
    target.templates = { headers: m.eventWebhook.headers, body: m.eventWebhook.body };
  }
  return { target };
}

async function dataTarget(deps: Deps, row: DeliveryRow): Promise<Resolution> {
  const s = await deps.store.dataSources.get(row.projectId, row.moduleId);
  if (!s) return { drop: 'DATA_SOURCE_NOT_FOUND' };
  if (s.type !== 'webhook' || !s.url || !s.keySealed) return { drop: 'WEBHOOK_REMOVED' };
  const failing = s.failingSince !== null;
  const where = { projectId: row.projectId, sourceId: row.moduleId };
  return {
    target: {
      url: s.url,
      keySealed: s.keySealed,
      // a success only needs writing when it ends a failing spell (no query per healthy batch)
      afterAttempt: (ok, error) => (ok && !failing ? Promise.resolve() : noteDataDelivery({ deps, input: { ...where, ok, error } })),
    },
  };
}

async function reportTarget(deps: Deps, row: DeliveryRow): Promise<Resolution> {
  const r = await deps.store.reports.get(row.moduleId);
  if (!r || r.projectId !== row.projectId) return { drop: 'REPORT_NOT_FOUND' };
  if (r.destination.type !== 'webhook' || !r.keySealed) return { drop: 'WEBHOOK_REMOVED' };
  return { target: { url: r.destination.url, keySealed: r.keySealed } };
}

export function resolveTarget(deps: Deps, row: DeliveryRow): Promise<Resolution> {
  switch (row.kind) {
    case 'event':
    case 'command':
      return moduleTarget(deps, row);
    case 'data':
      return dataTarget(deps, row);
    case 'report':
      return reportTarget(deps, row);
  }
}
