// sweepOutbox (docs/concepts.md#command-outbox): the worker's pass over every device's outbox.
// Commands past their expiration become `expired` on time, whether or not their device ever
// comes back; finished commands older than the retention are removed. In batches, so no
// statement runs long; several workers may sweep at once (each change happens once).
import type { StoreOf, SystemArgs } from '../deps.js';
import { commandUpdated, type CommandUpdatedDeps } from './outbox-view.js';

export interface SweepResult {
  expired: number;
  removed: number;
}

export async function sweepOutbox({
  deps,
  input: { batchSize, retentionDays },
}: SystemArgs<CommandUpdatedDeps & StoreOf<'devices' | 'commands'>, { batchSize: number; retentionDays: number }>): Promise<SweepResult> {
  const out: SweepResult = { expired: 0, removed: 0 };
  for (;;) {
    const rows = await deps.store.commands.expire(deps.clock.now().toISOString(), batchSize);
    for (const r of rows) await commandUpdated(deps, r);
    out.expired += rows.length;
    if (rows.length < batchSize) break;
  }
  if (retentionDays > 0) {
    const before = new Date(deps.clock.now().getTime() - retentionDays * 86_400_000).toISOString();
    for (;;) {
      const n = await deps.store.commands.prune(before, batchSize);
      out.removed += n;
      if (n < batchSize) break;
    }
  }
  return out;
}
