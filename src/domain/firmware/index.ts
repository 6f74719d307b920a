export * from './schemas.js';
export { uploadFirmwareFile, firmwareFolder } from './upload.js';
export { openFirmwareFile, etagOf, rangeOf, type FileDownload } from './download.js';
export { fileUrl } from './access.js';
