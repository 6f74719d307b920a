export * from './schemas.js';
export { rolloutView, rolloutDeviceView } from './view.js';
export { createRollout, cohortPercent, waveOf } from './create.js';
export { getRollout, listRollouts, listRolloutDevices } from './read.js';
export { patchRollout } from './patch.js';
export { recordFirmwareInstallation, trackInstall } from './installed.js';
export { trackCommand, trackDownload, announceRollout, rolloutChanged, ANNOUNCE_GAP_MS } from './track.js';
export { advanceRollouts, componentsFor, type AdvanceResult, type AdvanceDeps } from './advance.js';
export { removeDeviceRollouts } from './device-cleanup.js';
