export { deviceConnected, type PresenceDeps, type PresenceDevice, type Transport } from './connected.js';
export { deviceDisconnected } from './disconnected.js';
export { devicesOrphaned } from './orphaned.js';
export { devicesRestored } from './restored.js';
