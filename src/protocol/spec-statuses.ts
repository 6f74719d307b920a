// docs/api.md#device-operations: the error statuses each device operation may answer. An operation answers only
// these (plus its success code); fitStatus (error-status.ts) enforces it, for the REST API and the
// broker's WebSocket upgrades alike.
export const SPEC_STATUSES = {
  getAllDevices: [401, 403, 429, 500, 503],
  addDeviceHome: [401, 403, 429, 500, 503],
  deleteDevice: [401, 403, 404, 409, 429, 500, 503],
  getDeviceInfo: [401, 403, 404, 429, 500, 503],
  updateDeviceInfo: [401, 403, 404, 429, 500, 503],
  receiveCommands: [403, 404, 500, 503],
  sendCommandDevice: [401, 403, 404, 429, 500],
  getDeviceConfigurationSchemas: [401, 403, 429, 500, 503],
  postData: [401, 403, 429, 500, 503],
  sendDeviceEventCloud: [401, 403, 404, 429, 500, 503],
  recordFirmwareInstallation: [401, 403, 404, 429, 500, 503],
  getHTTPAccessLogEntries: [401, 403, 429, 500, 503],
  getKeyValuePairsReceiveUpdates: [401, 403, 429, 500, 503],
  deleteKeyValuePair: [401, 403, 404, 409, 429, 500, 503],
  lookUpKeyValuePair: [401, 403, 404, 429, 500, 503],
  createUpdateKeyValuePair: [403, 404, 500, 503],
  getLogEntries: [401, 403, 429, 500, 503],
  getDeviceLogRequests: [401, 403, 429, 500, 503],
  requestDeviceLogs: [401, 403, 429, 500, 503],
  deleteDeviceLogRequest: [401, 403, 404, 409, 429, 500, 503],
  getDeviceLogRequest: [401, 403, 404, 429, 500, 503],
  updateDeviceTag: [401, 403, 404, 429, 500, 503],
} as const satisfies Record<string, readonly number[]>;

export type SpecOperation = keyof typeof SPEC_STATUSES;
