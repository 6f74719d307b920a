export * from './schemas.js';
export { bundleView } from './view.js';
export { createBundle } from './create.js';
export { getBundle, listBundles } from './read.js';
export { deleteBundle } from './delete.js';
