export * from './schemas.js';
export { listTimeSeries, getTimeSeries, getTimeSeriesRange } from './read.js';
export { getTimeSeriesData } from './data.js';
export { deleteTimeSeries } from './delete.js';
export { RESOLUTIONS, type Resolution } from './resolution.js';
export { DroppedPoints } from './dropped.js';
