// The worker's pass over rollouts (docs/firmware.md#rollouts), every `rollouts.tickMs`. For each
// running rollout, under a lease so that one worker at a time advances it (a killed worker's
// lease runs out and another takes over; every step below is a conditional update, so a step
// repeated by the next holder changes nothing twice):
//   1. devices notified longer than the ttl ago and still open: failed;
//   2. every targeted device installed or failed: completed;
//   3. failed / (installed + failed) above the threshold with at least 5 results (since the last
//      resume): paused;
//   4. the next wave's `afterMinutes` since the current one began: the next wave;
//   5. pending devices of the waves begun, as many as `ratePerMinute` leaves room for in the
//      last minute: their `firmware-update` command enqueued (outbox, so a sleeping device gets
//      it when it wakes), with the idempotency key `rollout:<id>` so a worker killed between
//      enqueuing and recording enqueues nothing twice; announced to the brokers only once the
//      batch is recorded and the rollout found not aborted.
// Then, for every rollout with a change not yet announced, `_rolloutUpdated_` (track.ts).
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import type { BundleComponent, FirmwareFileRow, RolloutRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { enqueueCommand, type EnqueueCommandDeps } from '../command/enqueue.js';
import { announceRollout, type RolloutTrackDeps } from './track.js';
import { cancelWaiting, type CancelDeps } from './cancel-commands.js';
import { FIRMWARE_UPDATE_ACTION, THRESHOLD_MIN_RESULTS } from './schemas.js';
import { writeLog } from '../log/write.js';

const BATCH = 500;
const DUE_MAX = 200;
const PACE_WINDOW_MS = 60_000;

export type AdvanceDeps = Pick<Deps, 'clock'> & RolloutTrackDeps & EnqueueCommandDeps & CancelDeps & StoreOf<'rollouts' | 'bundles' | 'firmwareFiles' | 'logs'>;

export interface AdvanceResult {
  notified: number;
  failedOverdue: number;
  paused: number;
  completed: number;
  waves: number;
}

/** the components as a device is told them (docs/firmware.md#the-device-side) */
export function componentsFor(components: BundleComponent[], files: FirmwareFileRow[]) {
  return components.map((c) => {
    const f = files.find((x) => x.componentName === c.componentName);
    const out: Record<string, unknown> = { componentName: c.componentName, componentVersionName: c.componentVersionName };
    if (c.url !== undefined) out.url = c.url;
    const sha = f?.sha256 ?? (c.checksum?.startsWith('sha256:') ? c.checksum.slice(7) : undefined);
    if (sha !== undefined) out.sha256 = sha;
    if (f) out.size = f.size;
    return out;
  });
}

export async function advanceRollouts({
  deps,
  input: { owner, leaseMs },
}: SystemArgs<AdvanceDeps, { owner: string; leaseMs: number }>): Promise<AdvanceResult> {
  const out: AdvanceResult = { notified: 0, failedOverdue: 0, paused: 0, completed: 0, waves: 0 };
  for (const r of await deps.store.rollouts.due(DUE_MAX)) {
    const until = () => new Date(deps.clock.now().getTime() + leaseMs).toISOString();
    if (!(await deps.store.rollouts.lease(r.id, owner, deps.clock.now().toISOString(), until()))) continue;
    try {
      if (r.state === 'running') await advanceOne(deps, r.id, out, () => deps.store.rollouts.lease(r.id, owner, deps.clock.now().toISOString(), until()));
      await announceRollout(deps, r.id);
    } finally {
      await deps.store.rollouts.release(r.id, owner);
    }
  }
  return out;
}

async function advanceOne(deps: AdvanceDeps, id: string, out: AdvanceResult, renew: () => Promise<boolean>): Promise<void> {
  let r = await deps.store.rollouts.get(id);
  if (!r || r.state !== 'running') return;
  const now = () => deps.clock.now();
  // 1. out of time
  const overdue = await deps.store.rollouts.failOverdue(r.id, now().toISOString(), 100_000, 'not installed within the rollout ttl');
  if (overdue) {
    out.failedOverdue += overdue;
    await deps.store.rollouts.touch(r.id, now().toISOString());
  }
  const counts = (await deps.store.rollouts.counts([r.id])).get(r.id)!;
  // 2. done
  if (counts.installed + counts.failed === counts.targeted) {
    if (await deps.store.rollouts.update(r.id, ['running'], { state: 'completed' }, now().toISOString())) {
      out.completed++;
      await log(deps, r, `rollout ${r.id} completed: ${counts.installed} installed, ${counts.failed} failed`);
    }
    return;
  }
  // 3. too many failures
  const installed = counts.installed - r.baseInstalled;
  const failed = counts.failed - r.baseFailed;
  if (installed + failed >= THRESHOLD_MIN_RESULTS && (failed * 100) / (installed + failed) > r.failureThreshold) {
    if (await deps.store.rollouts.update(r.id, ['running'], { state: 'paused' }, now().toISOString())) {
      out.paused++;
      await log(deps, r, `rollout ${r.id} paused: ${failed} of ${installed + failed} results failed, above its threshold of ${r.failureThreshold}%`, 'warn');
    }
    return;
  }
  // 4. the next wave, when its time has come
  while (r.currentWave < r.waves.length - 1) {
    const next = r.waves[r.currentWave + 1]!;
    if (now().getTime() < Date.parse(r.waveTime) + (next.afterMinutes ?? 0) * 60_000) break;
    const moved = await deps.store.rollouts.update(
      r.id,
      ['running'],
      { currentWave: r.currentWave + 1, waveTime: now().toISOString() },
      now().toISOString(),
      r.currentWave,
    );
    if (!moved) return;
    out.waves++;
    r = moved;
  }
  // 5. notify, paced
  if (now().getTime() < Date.parse(r.waveTime)) return;
  const bundle = await deps.store.bundles.get(r.bundleId);
  if (!bundle) return;
  const components = componentsFor(bundle.components, await deps.store.firmwareFiles.list(bundle.id));
  for (;;) {
    let room = BATCH;
    if (r.ratePerMinute !== null) {
      const since = new Date(now().getTime() - PACE_WINDOW_MS).toISOString();
      room = Math.min(BATCH, r.ratePerMinute - (await deps.store.rollouts.notifiedSince(r.id, since)));
    }
    if (room <= 0) return;
    const batch = await deps.store.rollouts.toNotify(r.id, r.currentWave, room);
    const sent: { deviceId: number; commandId: string }[] = [];
    for (const d of batch) {
      const commandId = await notify(deps, r, d.deviceId, components);
      if (commandId) {
        out.notified++;
        sent.push({ deviceId: d.deviceId, commandId });
      }
    }
    // The batch's commands are stored but not yet announced, so a connected device has not been
    // sent one. Aborted while this pass enqueued: the abort cancels the commands it finds
    // recorded, and a command enqueued but not yet recorded when it looked is cancelled here (each
    // side checks after its own write, so one of them sees every command; cancelling twice is a
    // no-op); nothing is announced. Otherwise the batch is announced now; an abort from here on
    // finds every command recorded and cancels those not yet delivered.
    const current = await deps.store.rollouts.get(r.id);
    if (current?.state === 'aborted') {
      for (const c of sent) await cancelWaiting(deps, c.deviceId, c.commandId);
      return;
    }
    for (const c of sent) await deps.bus.publish('outbox', { deviceId: c.deviceId });
    if (batch.length < room) return;
    // a long pass keeps its lease; and stops if it lost it, or the rollout stopped running
    if (!(await renew())) return;
    if (!current || current.state !== 'running') return;
  }
}

/** the command's id once it is enqueued and recorded; undefined when the device was not notified */
async function notify(deps: AdvanceDeps, r: RolloutRow, deviceId: number, components: Record<string, unknown>[]): Promise<string | undefined> {
  const now = deps.clock.now().toISOString();
  try {
    const { command } = await enqueueCommand({
      deps,
      announce: false,
      input: {
        deviceId,
        body: {
          action: FIRMWARE_UPDATE_ACTION,
          parameters: { rolloutId: r.id, bundleId: r.bundleId, components },
          ttl: r.ttl,
          key: `rollout:${r.id}`,
          ackRequired: true,
        },
      },
    });
    return (await deps.store.rollouts.recordCommand(r.id, deviceId, command.id, now, command.expirationTime)) ? command.id : undefined;
  } catch (e) {
    if (!(e instanceof AppError) || (e.reason !== 'LIMIT_EXCEEDED' && e.reason !== 'DEVICE_NOT_FOUND')) throw e;
    const why = e.reason === 'LIMIT_EXCEEDED' ? 'the device outbox is full' : 'the device no longer exists';
    if (await deps.store.rollouts.move(r.id, deviceId, ['pending'], 'failed', now, `not notified: ${why}`)) await deps.store.rollouts.touch(r.id, now);
    return undefined;
  }
}

function log(deps: AdvanceDeps, r: RolloutRow, text: string, level: 'info' | 'warn' = 'info') {
  return writeLog({ deps, input: { projectId: r.projectId, level, source: 'worker', text } });
}
