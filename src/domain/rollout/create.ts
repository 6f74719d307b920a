// POST /projects/{projectId}/rollouts (docs/firmware.md#rollouts): a rollout of one bundle to the
// devices of its class, narrowed by `target`. Each targeted device gets a row now, with its wave:
// a hash of the rollout id and the device id, as a fraction of the cohort, falls in the first
// wave whose cumulative percent is above it, so a device's wave never changes and the waves
// split the fleet in the proportions asked. A device that already runs the bundle starts
// `installed`. The worker (rollout/advance.ts) notifies them from then on.
import { createHash, randomBytes } from 'node:crypto';
import type { Body, Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import type { DeviceRow, RolloutDeviceState, RolloutWave } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { projectKeyFor } from '../project/access.js';
import { writeLog } from '../log/write.js';
import { CreateRolloutSchema, FAILURE_THRESHOLD_DEFAULT, ROLLOUT_TTL_DEFAULT, type Rollout } from './schemas.js';
import { rolloutView } from './view.js';
import { rolloutChanged, type RolloutTrackDeps } from './track.js';

const PAGE = 5000;

/** the device's place in the cohort, 0 (inclusive) to 100 (exclusive), stable per rollout */
export function cohortPercent(rolloutId: string, deviceId: number): number {
  const h = createHash('sha256').update(`${rolloutId}:${deviceId}`).digest();
  return (h.readUInt32BE(0) / 0x1_0000_0000) * 100;
}

/** the first wave whose cumulative percent is above the device's place */
export function waveOf(waves: readonly RolloutWave[], rolloutId: string, deviceId: number): number {
  const p = cohortPercent(rolloutId, deviceId);
  const i = waves.findIndex((w) => p < w.percent);
  return i < 0 ? waves.length - 1 : i;
}

async function classDevices(deps: StoreOf<'devices'>, projectId: number, deviceClass: string, tag: string | undefined): Promise<DeviceRow[]> {
  const out: DeviceRow[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const { items } = await deps.store.devices.list({ projectId, deviceClass, tag }, { skip, limit: PAGE });
    out.push(...items);
    if (items.length < PAGE) return out;
  }
}

export async function createRollout({
  deps,
  caller,
  input: { projectId, body },
}: VerbArgs<Pick<Deps, 'clock'> & RolloutTrackDeps & StoreOf<'projects' | 'bundles' | 'devices' | 'rollouts' | 'logs'>, ProjectRef & Body>): Promise<Rollout> {
  await projectKeyFor(deps, caller, projectId, 'devices');
  const b = parseInput(CreateRolloutSchema, body);
  const bundle = await deps.store.bundles.get(b.bundleId);
  if (!bundle || bundle.projectId !== projectId) throw new AppError('BUNDLE_NOT_FOUND', { bundleId: b.bundleId });
  const target = b.target ?? {};
  let devices = await classDevices(deps, projectId, bundle.deviceClass, target.tag);
  if (target.channel !== undefined) devices = devices.filter((d) => d.channel === target.channel);
  if (target.deviceIds) {
    const named = new Set(target.deviceIds);
    const found = new Set(devices.filter((d) => named.has(d.id)).map((d) => d.id));
    const missing = [...named].filter((id) => !found.has(id));
    if (missing.length) {
      throw new AppError('INVALID_PARAMETERS', {
        issues: [
          {
            path: 'target.deviceIds',
            message: `not devices of class ${bundle.deviceClass} in this project${target.tag !== undefined || target.channel !== undefined ? ' matching the target' : ''}: ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ` and ${missing.length - 10} more` : ''}`,
          },
        ],
      });
    }
    devices = devices.filter((d) => named.has(d.id));
  }
  const waves = b.waves ?? [{ percent: 100 }];
  const now = deps.clock.now();
  const id = randomBytes(9).toString('hex');
  const creationTime = now.toISOString();
  const row = {
    id,
    projectId,
    bundleId: bundle.id,
    name: b.name ?? bundle.name ?? bundle.id,
    state: 'running' as const,
    target,
    waves,
    currentWave: 0,
    // wave 0 begins after its own afterMinutes, counted from now
    waveTime: new Date(now.getTime() + (waves[0]!.afterMinutes ?? 0) * 60_000).toISOString(),
    failureThreshold: b.failureThreshold ?? FAILURE_THRESHOLD_DEFAULT,
    ratePerMinute: b.ratePerMinute ?? null,
    ttl: b.ttl ?? ROLLOUT_TTL_DEFAULT,
    creationTime,
    updateTime: creationTime,
  };
  const rows = devices.map((d) => {
    const state: RolloutDeviceState = d.bundleInstalled === bundle.id ? 'installed' : 'pending';
    return { deviceId: d.id, wave: waveOf(waves, id, d.id), state };
  });
  await deps.store.rollouts.create(row, rows);
  const text = `rollout ${id} of bundle ${bundle.id} created for ${rows.length} devices in ${waves.length} waves`;
  await writeLog({ deps, input: { projectId, caller, level: 'info', source: 'api', text } });
  await rolloutChanged(deps, id);
  const counts = (await deps.store.rollouts.counts([id])).get(id)!;
  return rolloutView((await deps.store.rollouts.get(id)) ?? { ...row, baseInstalled: 0, baseFailed: 0 }, counts);
}
