// A webhook data source that fails refuses new batches for a while (docs/concepts.md#data-sources answer `partial`,
// docs/concepts.md#data-sources failedDataSources). Batches are delivered later, from the durable queue, so a post
// cannot wait for the receiver; what it can do is not pile more records onto a receiver that is
// failing right now, and say so. Circuit breaker: after a failed attempt the source refuses for
// REFUSE_FOR_MS; the first post after that is accepted again (a probe), and the next successful
// delivery clears the state. The worker reports every attempt through noteDataDelivery.
import type { DataSourceRow } from '../../ports/store.js';
import type { Deps, StoreOf, SystemArgs } from '../deps.js';

export const REFUSE_FOR_MS = 30_000;

/** why the source refuses a batch now, or undefined when it takes it */
export function refusalOf(s: DataSourceRow, now: Date): string | undefined {
  if (s.type !== 'webhook' || !s.failingSince || !s.lastFailureTime) return undefined;
  if (now.getTime() - Date.parse(s.lastFailureTime) >= REFUSE_FOR_MS) return undefined;
  return `WEBHOOK_FAILING: ${s.lastError ?? 'delivery failed'}`;
}

/** the outcome of one delivery attempt to a webhook source */
export async function noteDataDelivery({
  deps,
  input: outcome,
}: SystemArgs<Pick<Deps, 'clock'> & StoreOf<'dataSources'>, { projectId: number; sourceId: string; ok: boolean; error?: string }>): Promise<void> {
  const s = await deps.store.dataSources.get(outcome.projectId, outcome.sourceId);
  if (!s) return;
  const now = deps.clock.now().toISOString();
  if (outcome.ok) {
    if (s.failingSince)
      await deps.store.dataSources.update(s.projectId, s.id, {
        failingSince: null,
        lastFailureTime: null,
        lastError: null,
        modificationTime: s.modificationTime,
      });
    return;
  }
  await deps.store.dataSources.update(s.projectId, s.id, {
    failingSince: s.failingSince ?? now,
    lastFailureTime: now,
    lastError: (outcome.error ?? 'delivery failed').slice(0, 200),
    modificationTime: s.modificationTime,
  });
}
