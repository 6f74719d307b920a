// What /openapi.json says beyond the schemas themselves: the names of the shared components, the
// tags, a glossary of field descriptions and example values, and hand-written examples for the
// operations whose bodies have several forms. A field's own `v.description()` in its schema wins
// over the glossary; the glossary holds what a field name means wherever it appears, a field of
// one schema is described in that schema (docs/architecture.md#house-rules, rule 3). docs/api.md#openapi
export type JsonSchema = Record<string, unknown>;

/** the component a response is called by, keyed by an operation answering it */
export const COMPONENT_NAMES: Record<string, string> = {
  getDeviceInfo: 'Device',
  getHome: 'Home',
  getUser: 'User',
  getHomeMembers: 'Member',
  getBundle: 'Bundle',
  getDeviceClass: 'DeviceClass',
  getProjectApiKeys: 'ApiKey',
  createProjectApiKey: 'CreatedApiKey',
  lookUpKeyValuePair: 'KeyValue',
  getEvents: 'Event',
  getLogEntries: 'LogEntry',
  getHTTPAccessLogEntries: 'AccessLogEntry',
  getDeviceLogRequest: 'DeviceLogRequest',
  startDeviceLogUpload: 'LogUpload',
  getSmartModule: 'SmartModule',
  getSmartModuleDeliveries: 'DeliverySummary',
  getSmartModuleDelivery: 'Delivery',
  getDataSource: 'DataSource',
  getDataRecords: 'DataRecord',
  postData: 'DataPostResult',
  getScheduledReport: 'ScheduledReport',
  getScheduledReportRun: 'ReportRun',
  getFleetStats: 'FleetStats',
  getDeviceConfigurationSchemas: 'DeviceConfigSchema',
  getAuthInfo: 'AuthInfo',
  getUserSession: 'UserSession',
  createUserSession: 'UserToken',
  createDeviceProvisioningToken: 'ProvisioningToken',
  updateDeviceClaimableState: 'ClaimableState',
  'sendCommandDevice:body': 'Command',
  getDeviceCommand: 'OutboxCommand',
  getRollout: 'Rollout',
  getRolloutDevices: 'RolloutDevice',
  putFirmwareFile: 'FirmwareFile',
  'createRollout:body': 'RolloutCreate',
  'enqueueDeviceCommand:body': 'NewOutboxCommand',
  'ackDeviceCommand:body': 'CommandAck',
  'sendDeviceEventCloud:body': 'DeviceEvent',
  'createUpdateKeyValuePair:body': 'KeyValueWrite',
  'postData:body': 'DataPost',
};

/** tags by area, with the docs page that explains the area */
export const TAGS: Record<string, { description: string; page?: string }> = {
  devices: { description: 'The device registry: create, claim, provision, read, update, delete.', page: 'docs/concepts.md#devices' },
  'device realtime': { description: 'Commands to devices, events from devices, the command WebSocket.', page: 'docs/devices.md' },
  'device command outbox': { description: 'Commands that wait for a sleeping device, their states, and its answers.', page: 'docs/concepts.md#command-outbox' },
  'device key-value': { description: "A device's key-value store; live sync over MQTT or WebSocket.", page: 'docs/devices.md#kv-sync' },
  homes: { description: 'Homes, their members, and provisioning tokens for new devices.', page: 'docs/concepts.md#homes' },
  'home key-value': { description: "A home's key-value store.", page: 'docs/concepts.md#key-value-stores' },
  users: { description: "A project's users (self-signup while the project allows it).", page: 'docs/concepts.md#homes' },
  auth: { description: 'Who a credential is; user sign-in and sessions.', page: 'docs/api.md#credentials' },
  projects: { description: 'Project API keys and device classes.', page: 'docs/concepts.md#projects' },
  bundles: { description: 'Firmware bundles and what a device installed.', page: 'docs/concepts.md#devices' },
  firmware: { description: 'Firmware files of bundle components, and rollouts that bring a bundle to devices in waves.', page: 'docs/firmware.md' },
  events: { description: 'Stored event history.', page: 'docs/concepts.md#events' },
  data: { description: 'Data records posted by devices.', page: 'docs/concepts.md#data-sources' },
  'data sources': { description: 'Where data records go: stored, or posted to a webhook.', page: 'docs/concepts.md#data-sources' },
  'smart modules': { description: 'Webhooks for events and commands, their keys and delivery log.', page: 'docs/webhooks.md' },
  'scheduled reports': { description: 'Reports on a cron schedule (or on demand), stored or posted.', page: 'docs/concepts.md#reports' },
  'device log requests': { description: 'Asking a device for its log files, and reading them.', page: 'docs/concepts.md#log-requests' },
  'device log upload': { description: "The device's side of a log request: a multi-part upload with the request's token.", page: 'docs/devices.md#log-upload' },
  realtime: { description: 'The live event stream for browsers.', page: 'docs/devices.md#browser-event-stream' },
  logs: { description: 'HTTP access logs and the general log.', page: 'docs/operations.md#logs' },
  operations: { description: 'Health, readiness, metrics and these contracts. No credential.', page: 'docs/operations.md' },
};

const T = '2026-11-22T12:00:00.123Z';

/** field name (or `Component.path`, or `operationId?.param`) -> description and example */
const FIELDS: Record<string, { d: string; e?: unknown }> = {
  // ids and references
  id: { d: 'Id of this record' },
  projectId: { d: 'Id of the project', e: 1 },
  homeId: { d: 'Id of the home', e: 7 },
  deviceId: { d: 'Id of the device', e: 42 },
  userId: { d: 'Id of the user', e: 3 },
  keyId: { d: 'Id of the project API key', e: 'k7Qx2mB9' },
  classId: { d: 'Id of the device class', e: 'lamp' },
  moduleId: { d: 'Id of the smart module', e: 'my-webhooks' },
  deliveryId: { d: 'Id of the webhook delivery', e: 'd_9f2c4e' },
  dataSourceId: { d: 'Id of the data source', e: 'readings' },
  reportId: { d: 'Id of the scheduled report', e: 'daily-devices' },
  runId: { d: 'Id of the report run', e: 'r_5a1b' },
  requestId: { d: 'Id of the log request', e: 'lr_3c9d' },
  uploadId: { d: 'Id of the upload session', e: 'up_77aa' },
  eventId: { d: 'Id of the event', e: 'ev_12ab' },
  bundleId: { d: 'Id of the firmware bundle', e: 'lamp-fw-1.2.0' },
  projectKeyId: { d: 'Id of the project API key', e: 'k7Qx2mB9' },
  projectKeyName: { d: 'Name of the project API key', e: 'admin' },
  reason: { d: 'Why it failed', e: 'device ran out of storage' },
  'Home.id': { d: 'Unique home id', e: 7 },
  'User.id': { d: 'Unique user id', e: 3 },
  'Bundle.id': { d: 'Bundle id: letters, digits, `-`, `_`, `.`', e: 'lamp-fw-1.2.0' },
  'DeviceClass.id': { d: 'Class id: letters, digits, `-`, `_`, `.`', e: 'lamp' },
  'ApiKey.id': { d: 'Key id (not the key itself)', e: 'k7Qx2mB9' },
  'CreatedApiKey.id': { d: 'Key id (not the key itself)', e: 'k7Qx2mB9' },
  'CreatedApiKey.key': { d: 'The key itself (`pk.…`), shown only in this answer', e: 'pk.JgJNApZQ0hWZyzV_Qc-uk3fH6SVlOz' },
  'SmartModule.id': { d: 'Module id: 3 or more lowercase letters, digits, `-`, `_`', e: 'my-webhooks' },
  'CreateSmartModuleRequest.id': { d: 'Module id: 3 or more lowercase letters, digits, `-`, `_`', e: 'my-webhooks' },
  'eventWebhook.key': { d: 'Signing key of the webhook: in full only when created or rotated, masked otherwise', e: 'wk.8Hq…' },
  'commandWebhook.key': { d: 'Signing key of the webhook: in full only when created or rotated, masked otherwise', e: 'wk.8Hq…' },
  'DataSource.id': { d: 'Data source id', e: 'readings' },
  'ScheduledReport.id': { d: 'Report id', e: 'daily-devices' },
  'ReportRun.id': { d: 'Run id', e: 'r_5a1b' },
  'DeviceLogRequest.id': { d: 'Log request id', e: 'lr_3c9d' },
  'DeliverySummary.id': { d: 'Delivery id (the same on every retry; sent as X-Service-Delivery)', e: 'd_9f2c4e' },
  'Delivery.id': { d: 'Delivery id (the same on every retry; sent as X-Service-Delivery)', e: 'd_9f2c4e' },
  'DataRecord.id': { d: 'Record id', e: 1 },
  'Event.id': { d: 'Event id', e: 'ev_12ab' },
  'CreateDeviceClassRequest.id': { d: 'Class id: letters, digits, `-`, `_`, `.`', e: 'lamp' },
  'CreateBundleRequest.id': { d: 'Bundle id: letters, digits, `-`, `_`, `.`', e: 'lamp-fw-1.2.0' },
  'CreateDataSourceRequest.id': { d: 'Data source id', e: 'readings' },
  'ApiKey.name': { d: 'Display name', e: 'backend' },
  'CreatedApiKey.name': { d: 'Display name', e: 'backend' },
  'CreateProjectApiKeyRequest.name': { d: 'Display name', e: 'backend' },
  'DeviceClass.name': { d: 'Display name', e: 'Lamp' },
  'CreateDeviceClassRequest.name': { d: 'Display name', e: 'Lamp' },
  'User.name': { d: 'Display name', e: 'Ada Lovelace' },
  'CreateUserRequest.name': { d: 'Display name', e: 'Ada Lovelace' },
  'UpdateUserRequest.name': { d: 'Display name', e: 'Ada Lovelace' },
  'Member.name': { d: 'Display name', e: 'Ada Lovelace' },
  'Home.name': { d: 'Display name', e: 'my flat' },
  'CreateHomeRequest.name': { d: 'Display name', e: 'my flat' },
  'UpdateHomeRequest.name': { d: 'Display name', e: 'my flat' },
  'Bundle.name': { d: 'Display name', e: 'Lamp firmware 1.2.0' },
  'CreateBundleRequest.name': { d: 'Display name', e: 'Lamp firmware 1.2.0' },
  'DataSource.name': { d: 'Display name', e: 'temperature readings' },
  'CreateDataSourceRequest.name': { d: 'Display name', e: 'temperature readings' },
  'UpdateDataSourceRequest.name': { d: 'Display name', e: 'temperature readings' },
  'ScheduledReport.name': { d: 'Display name', e: 'devices every morning' },
  'CreateScheduledReportRequest.name': { d: 'Display name', e: 'devices every morning' },
  'UpdateScheduledReportRequest.name': { d: 'Display name', e: 'devices every morning' },
  part: { d: 'Part number, from 1', e: 1 },
  // the device
  'Device.id': { d: 'Unique device id (read-only)', e: 42 },
  'Device.projectId': { d: 'Owning project (read-only)', e: 1 },
  'Device.homeId': { d: 'The home the device belongs to; absent when it is in none', e: 7 },
  deviceClass: { d: 'Device class id, defined by the project', e: 'default' },
  deviceClasses: { d: 'Device classes this applies to (none = all)', e: ['default'] },
  name: { d: 'Display name', e: 'desk lamp' },
  description: { d: 'Free description', e: 'The lamp on the desk by the window' },
  tag: { d: 'Informational tag, for example a serial number', e: 'SN-0042' },
  apiKey: { d: "The device's API key (`dk.…`): its MQTT password and credential; shown to project admins and at provisioning", e: 'dk.3q2-7mJxv0H1aYb9wZcKpQ' },
  claimCode: { d: 'Code a user enters to claim the device into a home; shown to project admins', e: 'K4TQ-9PZM' },
  claimExpirationTime: { d: "When the device's claimable window closes (read-only)", e: T },
  claimTime: { d: 'When a user claimed the device (read-only)', e: T },
  creationTime: { d: 'When the record was created (read-only)', e: T },
  bundleInstalled: { d: 'Id of the installed firmware bundle', e: 'lamp-fw-1.2.0' },
  bundleInstallTime: { d: 'When the bundle was installed (read-only)', e: T },
  channel: { d: 'Firmware channel the device downloads from', e: 'stable' },
  isConnected: { d: 'True while the device has a live MQTT or command WebSocket connection (read-only)', e: true },
  lastConnectTime: { d: 'Last connect time (read-only)', e: T },
  lastDisconnectTime: { d: 'Last disconnect time (read-only)', e: T },
  token: { d: 'A token: provisioning token, user token, log request token or mailed account code, by context', e: 'pt.Xb3kQ9mZ2vY1' },
  'AddDeviceHomeRequest.token': { d: 'Provisioning token (on-demand provisioning; no other credential needed)' },
  duration: { d: 'Seconds the claimable window stays open (1 to 86400); required when claimable is true', e: 3600 },
  claimable: { d: 'Open (true) or close (false) the claimable window', e: true },
  deviceTag: { d: 'Tag given to the device provisioned with this token', e: 'SN-0042' },
  expirationTime: { d: 'When it expires', e: T },
  search: { d: 'Matches a substring of the name (or email)', e: 'lamp' },
  afterId: { d: 'Keyset paging: only devices whose id is above this one (devices come by id)', e: 1200 },
  inHome: { d: 'true: only devices in a home; false: only devices in none', e: 'false' },
  total: { d: 'false: leave out the count of all matches (the range header total is `*`)', e: 'false' },
  // commands and events
  action: { d: 'Command name: lowercase letters, digits, `-` and `_`, at least 3 characters', e: 'light-on' },
  parameters: { d: 'Action-specific parameters; opaque to the service', e: { level: 80 } },
  eventType: { d: 'Event type: starts with a letter; `-` or `_` must be followed by letters or digits', e: 'button-pressed' },
  eventTypes: { d: 'Event types, comma-separated (none = all)', e: 'button-pressed' },
  eventData: { d: 'Event-specific JSON object; opaque to the service (at most 64 KiB)', e: { button: 1 } },
  timestamp: { d: 'When it happened (RFC 3339, UTC, milliseconds)', e: T },
  originDeviceId: { d: 'The device that sent the event, when a device did', e: 42 },
  originDeviceClass: { d: 'Class of the device that sent the event', e: 'default' },
  originDeviceIp: { d: 'Address of the device that sent the event', e: '203.0.113.7' },
  originProjectKeyId: { d: 'The project API key that sent the event, when one did', e: 'k7Qx2mB9' },
  originProjectKeyName: { d: 'Name of the project API key that sent the event', e: 'backend' },
  // key-value
  key: { d: 'Key: 1 to 256 letters, digits, `-`, `_`, `:`, starting and ending with a letter or digit', e: 'brightness' },
  value: { d: 'Any JSON value but null (at most 64 KiB)', e: 80 },
  modificationTime: { d: 'When the value was last written', e: T },
  keyPrefix: { d: 'Only keys starting with this', e: 'sys:' },
  // data
  data: { d: 'Records, 1 to 1000 JSON objects', e: [{ temperature: 21.5 }] },
  result: { d: '`success` when every data source accepted, else `partial`', e: 'success' },
  'CommandAck.result': { d: "The device's answer: any JSON object up to 64 KiB", e: { level: 80 } },
  'CommandAck.id': { d: 'Id of the command answered (MQTT; over HTTP the path names it)', e: '0mhx2k7a3-ab12cd000001' },
  'OutboxCommand.result': { d: "The device's answer, once it answered with one", e: { level: 80 } },
  failedDataSources: { d: 'The data sources that failed: `[dataSourceId, reason]` pairs', e: [] },
  retentionDays: { d: 'Days a store data source keeps records', e: 30 },
  'DataRecord.data': { d: 'The record as posted', e: { temperature: 21.5 } },
  time: { d: 'When it was recorded', e: T },
  // logs
  since: { d: 'Only entries at or after this time (RFC 3339)', e: '2026-11-22T00:00:00.000Z' },
  until: { d: 'Only entries before this time (RFC 3339)', e: '2026-11-23T00:00:00.000Z' },
  level: { d: 'Log level: 0 debug, 1 info, 2 warn, 3 error', e: 1 },
  source: { d: 'Where the entry comes from: api, broker, webhooks, reports …', e: 'broker' },
  text: { d: 'The message', e: 'device 42 connected over mqtt' },
  caller: { d: 'Who caused the entry' },
  'caller.id': { d: 'Id of the caller', e: '42' },
  'caller.type': { d: 'Kind of caller: device, user, project key, system', e: 'device' },
  'caller.name': { d: 'Display name of the caller', e: 'desk lamp' },
  sudoer: { d: 'Whether the caller acted with elevated rights', e: false },
  clientIp: { d: "The caller's address", e: '203.0.113.7' },
  latency: { d: 'Time the request took, in nanoseconds', e: 1250000 },
  method: { d: 'HTTP method', e: 'GET' },
  path: { d: 'Request path, secrets removed', e: '/devices/42' },
  pathPrefix: { d: 'Only paths starting with this', e: '/devices' },
  statusCode: { d: 'HTTP status answered', e: 200 },
  // log requests
  start: { d: 'Oldest log time wanted (RFC 3339)', e: '2026-11-22T00:00:00.000Z' },
  end: { d: 'Newest log time wanted (RFC 3339)', e: '2026-11-22T12:00:00.000Z' },
  prefixes: { d: 'Only log files whose names start with one of these', e: ['app'] },
  ts: { d: 'When the request was made', e: T },
  filename: { d: 'Name of the file', e: 'app.log' },
  contentType: { d: 'MIME type of the file', e: 'text/plain' },
  size: { d: 'Size in bytes', e: 2048 },
  numOfParts: { d: 'How many parts to upload', e: 1 },
  partSize: { d: 'Bytes per part (the last may be shorter)', e: 5242880 },
  urls: { d: 'Where to PUT each part, in order', e: ['/deviceLogger/lt.x/uploads/up_77aa/parts/1'] },
  url: { d: 'URL', e: 'https://example.com/hooks/hearth' },
  'DeviceLogRequest.url': { d: 'Where to download the uploaded file', e: '/devices/42/logRequests/lr_3c9d/file' },
  'DeviceLogRequest.status': { d: 'requested, uploading, success, failure or cancelled', e: 'requested' },
  'DeviceLogRequest.token': { d: 'Token the device uploads with', e: 'lt.9ZkQ2' },
  // users, homes, keys, sessions
  email: { d: 'Email address, unique in the project', e: 'ada@example.com' },
  password: { d: 'Password', e: 'correct horse battery staple' },
  currentPassword: { d: 'The current password (to change it)', e: 'correct horse battery staple' },
  canCreateDevices: { d: 'May create devices of the project (set by a project key)', e: false },
  verified: { d: 'Whether the email address is verified', e: true },
  role: { d: 'Role in the home: owner or member', e: 'member' },
  phoneNumber: { d: "Accepted and ignored (MODE's app library sends it)", e: '+15550100' },
  appId: { d: 'Id of the app signing in', e: 'web' },
  scopes: { d: 'What the key may do (`admin` = everything in the project)', e: ['admin'] },
  allowUserSignup: { d: 'Whether anyone may sign up as a user of the project', e: true },
  verifyEmails: { d: 'Self-signups verify their email address by a mailed code (needs a mail server on the Hearth)', e: false },
  commandActions: { d: '`spec`: lowercase command actions only; `mode`: camelCase ones too (`doEcho`)', e: 'spec' },
  components: { d: 'Firmware components of the bundle' },
  componentName: { d: 'Name of the firmware component', e: 'main' },
  componentVersionName: { d: 'Name of the component version', e: '1.2.0' },
  deviceConfigSchema: { d: 'Template for a configuration of the component', e: [] },
  checksum: { d: 'Checksum of the file', e: 'sha256:9f86d0…' },
  // smart modules and deliveries
  moduleType: { d: 'Kind of module: `webhooks`, or `tsdb` for home time series (docs/timeseries.md)', e: 'webhooks' },
  eventWebhook: { d: "Webhook called for every subscribed event of the project's homes" },
  tsdb: {
    d: 'Settings of a `tsdb` module: the event types whose `eventData.timeSeriesData` points it stores (docs/timeseries.md)',
    e: { eventTypes: ['timeSeriesData'] },
  },
  seriesId: { d: 'Id of the time series, as the device sent it (1 to 256 characters, `:` allowed)', e: '0101:28a183311676-temperature:0' },
  begin: { d: 'Start of the range (RFC 3339, or epoch milliseconds in a query)', e: '2026-11-01T00:00:00.000Z' },
  aggregation: { d: 'How the points of a bucket are combined: `avg`, `min`, `max`, `sum` or `count`', e: 'avg' },
  resolution: { d: 'Width of a bucket (`5sec` to `1month`); chosen for about 1,000 buckets when absent', e: '1hour' },
  commandWebhook: { d: "Webhook called when the module's command trigger is used" },
  subscriptions: { d: 'Event types, one per line (or an array); `*` for all (the default)', e: '*' },
  headers: { d: 'Extra headers; values may use `{{ path }}` templates', e: { 'x-device': '{{ originDeviceId }}' } },
  body: { d: 'Body template using `{{ path }}`; absent = the standard JSON body', e: '{"type":"{{ eventType }}"}' },
  enabled: { d: 'Whether it is active', e: true },
  disabledReason: { d: 'Why it was turned off (e.g. the receiver answered 410)', e: 'receiver answered 410' },
  disabledTime: { d: 'When it was turned off', e: T },
  failingSince: { d: 'Since when deliveries have been failing', e: T },
  lastError: { d: 'The last delivery error', e: 'connect ECONNREFUSED' },
  health: { d: 'How deliveries are going' },
  webhook: { d: 'Which key to rotate: event, command or both', e: 'both' },
  rotateKey: { d: 'Generate a new signing key', e: true },
  kind: { d: 'What kind: event or command delivery; or the report kind', e: 'event' },
  status: { d: 'State of the record', e: 'success' },
  'DeliverySummary.status': { d: 'pending, delivering, success, failed or dropped', e: 'success' },
  'Delivery.status': { d: 'pending, delivering, success, failed or dropped', e: 'success' },
  updateTime: { d: 'When the record last changed', e: T },
  attemptCount: { d: 'Attempts so far', e: 1 },
  nextAttemptTime: { d: 'When the next attempt is due', e: T },
  lastAttempt: { d: 'The latest attempt' },
  attempts: { d: 'Every attempt, oldest first' },
  event: {
    d: 'A sample event (the fields of an event webhook body) to render the templates with',
    e: { eventType: 'button-pressed', eventData: { button: 1 }, homeId: 7, originDeviceId: 42 },
  },
  payload: { d: 'The body that is sent', e: { eventType: 'button-pressed', eventData: { button: 1 }, homeId: 7, timestamp: T } },
  error: { d: 'What went wrong', e: 'timeout' },
  latencyMs: { d: 'How long it took, in milliseconds', e: 84 },
  response: { d: "First 4 KiB of the receiver's answer", e: 'ok' },
  // reports
  cron: { d: 'Cron expression (5 or 6 fields)', e: '0 6 * * *' },
  timezone: { d: 'IANA time zone of the schedule', e: 'Europe/Berlin' },
  schedule: { d: 'When the report runs' },
  destination: { d: 'Where the output goes: `{type: "store"}` or `{type: "webhook", url}`' },
  'destination.type': { d: 'store or webhook', e: 'store' },
  'destination.url': { d: 'Webhook URL (signed like smart module webhooks)', e: 'https://example.com/reports' },
  filter: { d: 'Which records the report covers' },
  window: { d: 'Time window covered, e.g. `24h` (events and deliveries)', e: '24h' },
  format: { d: 'Output format: csv or json', e: 'csv' },
  lastRunTime: { d: 'When it last ran', e: T },
  nextRunTime: { d: 'When it runs next', e: T },
  trigger: { d: 'What started the run: manual or schedule', e: 'manual' },
  startTime: { d: 'When the run started', e: T },
  endTime: { d: 'When the run ended', e: T },
  rows: { d: 'Rows in the output', e: 12 },
  outputBytes: { d: 'Size of the output in bytes', e: 1024 },
  // auth info
  type: { d: 'Kind', e: 'project key' },
  'AuthInfo.type': { d: 'What the credential acts as: user, device, project key or nobody', e: 'project key' },
  // paging and filters
  skip: { d: 'Items to skip (default 0)', e: '0' },
  limit: { d: 'Items to answer (default 1000, at most 10000)', e: '100' },
  authToken: { d: 'Credential for a browser WebSocket that cannot set headers (a user token or project key)', e: 'ut.Xb3kQ9mZ2vY1' },
  ticket: {
    d: 'Single-use ticket (from POST /auth/ticket, valid seconds) opening a WebSocket as the credential that asked for it, which then stays out of the URL',
    e: 'wt.Q2x7vNc4PzR8',
  },
  'StreamTicket.ticket': { d: 'Pass as `?ticket=` when opening the WebSocket; single use', e: 'wt.Q2x7vNc4PzR8' },
  'StreamTicket.expirationTime': { d: 'Unused after this, the ticket opens nothing', e: '2026-11-22T12:00:10.000Z' },
};

/** the description of a field: `Owner.path`, then the field name */
export function describeField(owner: string, path: string, name: string): string | undefined {
  return FIELDS[`${owner}.${path}`]?.d ?? FIELDS[path]?.d ?? FIELDS[name]?.d;
}

const exampleField = (owner: string | undefined, path: string, name: string): { e?: unknown } | undefined =>
  (owner && FIELDS[`${owner}.${path}`]) || FIELDS[path] || FIELDS[name];

/** an example value for a JSON schema, from its own examples, the glossary, or its type */
export function exampleOf(
  schema: JsonSchema,
  resolve: (s: JsonSchema) => JsonSchema,
  name = String(schema['x-field'] ?? ''),
  depth = 0,
  owner?: string,
  path = name,
): unknown {
  if (depth > 8) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
  const ref = schema.$ref as string | undefined;
  if (ref) return exampleOf(resolve(schema), resolve, name, depth + 1, ref.split('/').pop(), '');
  const known = name ? exampleField(owner, path, name) : undefined;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return known && schema.enum.includes(known.e) ? known.e : schema.enum[0];
  if (known && 'e' in known && schema.type !== 'object') {
    // a glossary value of one item where the schema wants a list
    return schema.type === 'array' && !Array.isArray(known.e) ? [known.e] : known.e;
  }
  for (const k of ['anyOf', 'oneOf'] as const) {
    const opts = (schema[k] as JsonSchema[] | undefined)?.filter((o) => o.type !== 'null');
    if (opts?.length) return exampleOf(opts[0], resolve, name, depth + 1, owner, path);
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  switch (type) {
    case 'array':
      return schema.items ? [exampleOf(schema.items as JsonSchema, resolve, name, depth + 1, owner, path)] : [];
    case 'object': {
      const props = schema.properties as Record<string, JsonSchema> | undefined;
      if (!props) return known?.e ?? {};
      const out: Record<string, unknown> = {};
      for (const [k, p] of Object.entries(props)) {
        const v = exampleOf(p, resolve, k, depth + 1, owner, path ? `${path}.${k}` : k);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    case 'string':
      return schema.format === 'date-time' ? T : schema.format === 'uri' ? 'https://example.com/hooks/hearth' : 'text';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    default:
      return known?.e ?? {};
  }
}

/** operations whose bodies have several forms, or whose generated example would mislead */
export const OP_EXAMPLES: Record<string, { request?: unknown; requests?: Record<string, unknown>; response?: unknown; params?: Record<string, unknown> }> = {
  createRollout: {
    request: {
      bundleId: 'lamp-fw-1.2.0',
      name: 'desk lamps 1.2.0',
      target: { channel: 'stable' },
      waves: [{ percent: 10 }, { percent: 100, afterMinutes: 60 }],
      failureThreshold: 10,
      ttl: 86400,
    },
  },
  revokeIssuedDeviceCertificate: { request: { fingerprint: '3f0c6e5a9b1d2c4e7f8a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e' } },
  addDeviceHome: {
    requests: {
      'create (project key)': { projectId: 1, deviceClass: 'default', name: 'desk lamp' },
      'claim into a home': { claimCode: 'K4TQ-9PZM', homeId: 7 },
      'provision on demand': { token: 'pt.Xb3kQ9mZ2vY1' },
    },
  },
  updateDeviceInfo: { request: { name: 'desk lamp', description: 'by the window', tag: 'SN-0042' } },
  sendCommandDevice: { request: { action: 'light-on', parameters: { level: 80 } } },
  sendDeviceEventCloud: { request: { eventType: 'button-pressed', eventData: { button: 1 } } },
  createUpdateKeyValuePair: { request: { value: 80 } },
  createUpdateHomeKeyValuePair: { request: { value: 'away' } },
  postData: { request: { data: [{ temperature: 21.5, humidity: 40 }] } },
  getAuthInfo: { response: { type: 'project key', projectId: 1, projectKeyId: 'k7Qx2mB9', projectKeyName: 'admin' } },
  updateUser: { request: { name: 'Ada Lovelace' } },
  createDataSource: { request: { id: 'readings', name: 'temperature readings', type: 'store', deviceClasses: ['default'], retentionDays: 30 } },
  updateDataSource: { request: { name: 'temperature readings', retentionDays: 60 } },
  updateScheduledReport: { request: { enabled: false } },
  updateSmartModule: { request: { eventWebhook: { subscriptions: 'button-pressed\ntemp-high' } } },
  createUserSession: { request: { projectId: 1, email: 'ada@example.com', password: 'correct horse battery staple' } },
  createSmartModule: {
    request: {
      id: 'my-webhooks',
      moduleType: 'webhooks',
      description: 'forward button presses',
      eventWebhook: { url: 'https://example.com/hooks/hearth', subscriptions: 'button-pressed' },
      commandWebhook: { url: 'https://example.com/hooks/command' },
    },
  },
  createScheduledReport: {
    request: {
      name: 'devices every morning',
      kind: 'devices',
      format: 'csv',
      schedule: { cron: '0 6 * * *', timezone: 'Europe/Berlin' },
      destination: { type: 'store' },
    },
  },
};
