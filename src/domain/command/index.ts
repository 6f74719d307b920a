export * from './schemas.js';
export { sendCommand, type SendCommandDeps } from './send.js';
