export * from './schemas.js';
export * from './target.js';
export { setKv, checkKey } from './set.js';
export { deleteKv } from './delete.js';
export { getKv, listKv, reloadMessage } from './read.js';
