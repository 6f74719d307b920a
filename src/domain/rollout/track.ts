// How a rollout's devices move (docs/firmware.md#rollouts) as things happen to them elsewhere: the
// notification command changes state (outbox), the device asks for a file of the bundle. Each
// move is one conditional update of the device's row (ports/store/rollouts.ts), so an event
// seen twice, or on two nodes, moves nothing twice. `_rolloutUpdated_` announces a change at most
// once a second per rollout: at once when the last announcement is older, else by the worker's
// next pass (rollout/advance.ts), so the last change of a burst is never left unsaid.
import type { EmitDeps, StoreOf } from '../deps.js';
import type { CommandRow, RolloutDeviceState } from '../../ports/store.js';
import { OPEN_ROLLOUT_DEVICE } from '../../ports/store.js';
import { emitEvent } from '../event/emit.js';
import { FIRMWARE_UPDATE_ACTION, ROLLOUT_UPDATED } from './schemas.js';
import { rolloutView } from './view.js';

export const ANNOUNCE_GAP_MS = 1000;

export type RolloutTrackDeps = EmitDeps & StoreOf<'rollouts'>;

/** `_rolloutUpdated_` with the rollout as it is now, if its turn has come (else the worker says it later) */
export async function announceRollout(deps: RolloutTrackDeps, rolloutId: string): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  if (!(await deps.store.rollouts.claimAnnouncement(rolloutId, now, ANNOUNCE_GAP_MS))) return false;
  const r = await deps.store.rollouts.get(rolloutId);
  if (!r) return false;
  const counts = (await deps.store.rollouts.counts([r.id])).get(r.id)!;
  await emitEvent(deps, {
    projectId: r.projectId,
    event: { eventType: ROLLOUT_UPDATED, eventData: rolloutView(r, counts) as unknown as Record<string, unknown>, timestamp: now },
  });
  return true;
}

/** a device moved: the rollout owes an announcement */
export async function rolloutChanged(deps: RolloutTrackDeps, rolloutId: string): Promise<void> {
  await deps.store.rollouts.touch(rolloutId, deps.clock.now().toISOString());
  await announceRollout(deps, rolloutId);
}

/** the rollout a notification command belongs to, if it is one */
export function rolloutOfCommand(r: Pick<CommandRow, 'action' | 'parameters'>): string | undefined {
  const id = r.parameters.rolloutId;
  return r.action === FIRMWARE_UPDATE_ACTION && typeof id === 'string' ? id : undefined;
}

function errorOf(result: Record<string, unknown> | null): string {
  const said = result && (result.error ?? result.message ?? result.reason);
  return typeof said === 'string' && said ? `the device answered error: ${said.slice(0, 200)}` : 'the device answered error';
}

/**
 * A notification command changed state (a command observer of Deps, told by command/outbox-view.ts):
 * written to the device (sent, delivered, or answered ok) moves `pending` → `notified`; answered
 * `error` or expired moves an open device to `failed`. Cancelled (an abort, or the install that
 * made it pointless) moves nothing.
 */
export async function trackCommand(deps: RolloutTrackDeps, r: CommandRow): Promise<void> {
  const rolloutId = rolloutOfCommand(r);
  if (!rolloutId) return;
  const now = deps.clock.now().toISOString();
  let from: readonly RolloutDeviceState[];
  let to: RolloutDeviceState;
  let error: string | null = null;
  if (r.state === 'sent' || r.state === 'delivered' || r.state === 'acked') {
    from = ['pending'];
    to = 'notified';
  } else if (r.state === 'failed') {
    from = OPEN_ROLLOUT_DEVICE;
    to = 'failed';
    error = errorOf(r.result);
  } else if (r.state === 'expired') {
    from = OPEN_ROLLOUT_DEVICE;
    to = 'failed';
    error = 'the notification expired before the device installed the bundle';
  } else return;
  if (await deps.store.rollouts.move(rolloutId, r.deviceId, from, to, now, error)) await rolloutChanged(deps, rolloutId);
}

/** the device asked for a file of the bundle: its open rollouts of that bundle move to `downloading` */
export async function trackDownload(deps: RolloutTrackDeps, deviceId: number, bundleId: string): Promise<void> {
  const rows = await deps.store.rollouts.ofDevice(deviceId, bundleId, ['pending', 'notified']);
  const now = deps.clock.now().toISOString();
  for (const row of rows) {
    if (row.rolloutState === 'aborted') continue;
    if (await deps.store.rollouts.move(row.rolloutId, deviceId, ['pending', 'notified'], 'downloading', now)) await rolloutChanged(deps, row.rolloutId);
  }
}
