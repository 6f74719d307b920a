import type { RolloutCounts, RolloutDeviceRow, RolloutRow } from '../../ports/store.js';
import type { Rollout, RolloutDevice } from './schemas.js';

export function rolloutView(r: RolloutRow, counts: RolloutCounts): Rollout {
  return {
    id: r.id,
    projectId: r.projectId,
    bundleId: r.bundleId,
    name: r.name,
    state: r.state,
    target: r.target,
    waves: r.waves,
    currentWave: r.currentWave,
    failureThreshold: r.failureThreshold,
    counts,
    creationTime: r.creationTime,
    updateTime: r.updateTime,
  };
}

export function rolloutDeviceView(d: RolloutDeviceRow): RolloutDevice {
  const out: RolloutDevice = { deviceId: d.deviceId, state: d.state, updateTime: d.updateTime };
  if (d.error !== null) out.error = d.error;
  return out;
}
