export * from './schemas.js';
export { toDataSource } from './view.js';
export { requireDataManager, sourceFor, takesClass } from './access.js';
export { createDataSource, type DataDeps } from './source-create.js';
export { updateDataSource } from './source-update.js';
export { listDataSources, getDataSource, deleteDataSource, listDataRecords, type DataRecordView } from './source-read.js';
export { postData, postDeviceData, routeData, type PostDeps } from './post.js';
export { refusalOf, noteDataDelivery, REFUSE_FOR_MS } from './health.js';
export { dataBatchDelivery, DATA_QUEUE, type DataBatchBody } from './webhook-batch.js';
