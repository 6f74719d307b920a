// The configuration, as valibot checks it once at start-up. Every leaf of config/default.json has
// an environment variable named after its path: `limits.httpBodyBytes` → HEARTH_LIMITS_HTTP_BODY_BYTES.
import * as v from 'valibot';
import ipaddr from 'ipaddr.js';

const port = v.pipe(
  v.number('expected an integer'),
  v.integer('expected an integer'),
  v.minValue(0, 'expected 0 to 65535'),
  v.maxValue(65535, 'expected 0 to 65535'),
);
const positive = v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(1, 'expected a positive integer'));
const days = v.pipe(v.number('expected a number of days'), v.integer('expected an integer'), v.minValue(0, 'expected 0 (keep forever) or more days'));
const nullableString = v.nullable(v.pipe(v.string('expected a string'), v.minLength(1, 'expected a non-empty string')));
const enabled = v.boolean('expected true or false');
const ROLES = ['broker', 'api', 'worker'] as const;

/** a dotted-quad IPv4 or an IPv6 address, with or without a /prefix (no `127.1` shorthands) */
function isAddressOrCidr(text: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv4.isValidCIDRFourPartDecimal(text) || ipaddr.IPv6.isValid(text) || ipaddr.IPv6.isValidCIDR(text);
}

/** scheme://host[:port] and nothing else, as a browser sends it in Origin */
function isOrigin(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === text;
  } catch {
    return false;
  }
}

export const ConfigSchema = v.object({
  host: v.pipe(v.string(), v.minLength(1, 'expected an address')),
  // `enabled: false` switches a plain listener off (HEARTH_HTTP_ENABLED, HEARTH_MQTT_ENABLED), for a
  // server that speaks only TLS; a port of 0 means "any free port" (tests), not "off"
  http: v.object({ port, enabled, publicUrl: v.nullable(v.pipe(v.string(), v.url('expected an absolute URL'))) }),
  // docs/devices.md#mqtt: one device cannot exhaust the broker. Filters per connection (SUBACK 0x80 past
  // it), persistent sessions per device (the oldest offline one goes past it), unacknowledged
  // QoS 1 messages queued per persistent session (QoS 0 past it), the lifetime of an offline
  // session, and the wait before refusing repeated bad credentials from one address (doubled
  // each time, up to the max)
  mqtt: v.object({
    port,
    enabled,
    maxSubscriptionsPerConnection: positive,
    maxSessionsPerDevice: positive,
    maxQueuedPerSession: positive,
    sessionExpirySeconds: positive,
    authFailureDelayMs: positive,
    authFailureMaxDelayMs: positive,
    // docs/operations.md#sizing: the MQTT and MQTTS listeners' accept queue (listen backlog);
    // Linux caps it at net.core.somaxconn
    backlog: positive,
  }),
  // docs/operations.md#configuration: the TLS listeners start when certFile and keyFile are both set (reloaded on SIGHUP)
  https: v.object({ port }),
  mqtts: v.object({ port }),
  // clientCertificates (docs/tls.md#client-certificates): `optional` asks TLS clients for a certificate a device may sign in with
  tls: v.object({
    certFile: nullableString,
    keyFile: nullableString,
    caFile: nullableString,
    clientCertificates: v.picklist(['off', 'optional'], 'expected off or optional'),
  }),
  // addresses/CIDRs whose X-Forwarded-For is believed (src/http/client-ip.ts)
  trustedProxies: v.array(
    v.pipe(
      v.string(),
      v.check(isAddressOrCidr, (i) => `expected IP addresses or CIDRs, comma-separated; ${JSON.stringify(i.input)} is neither`),
    ),
  ),
  // docs/api.md#conventions: `*`, or the origins allowed to read answers (echoed, with Vary: Origin)
  corsOrigins: v.pipe(
    v.array(
      v.pipe(
        v.string(),
        v.check(
          (o) => o === '*' || isOrigin(o),
          (i) => `expected * or origins such as https://app.example.com, comma-separated; ${JSON.stringify(i.input)} is not an origin`,
        ),
      ),
    ),
    v.minLength(1, 'expected * or at least one origin'),
    v.check((list) => list.length === 1 || !list.includes('*'), 'expected * alone or a list of origins, not both'),
  ),
  dataDir: v.pipe(v.string(), v.minLength(1, 'expected a directory')),
  databaseUrl: v.nullable(v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\/.+/, 'expected a postgres:// URL'))),
  databaseSchema: v.nullable(v.pipe(v.string(), v.regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lowercase SQL identifier'))),
  redisUrl: v.nullable(v.pipe(v.string(), v.regex(/^rediss?:\/\/.+/, 'expected a redis:// URL'))),
  redisPrefix: v.string(),
  // docs/operations.md#mail: the mail server for account mail (email verification, password reset)
  // and the sender's address; both or neither
  smtpUrl: v.nullable(v.pipe(v.string(), v.regex(/^smtps?:\/\/.+/, 'expected an smtp:// or smtps:// URL'))),
  mailFrom: v.nullable(
    v.pipe(
      v.string(),
      v.regex(/^(?:[^<>@\s]+@[^<>@\s]+|[^<>]*<[^<>@\s]+@[^<>@\s]+>)$/, 'expected an address such as hearth@example.com or "Hearth <hearth@example.com>"'),
    ),
  ),
  roles: v.pipe(v.array(v.picklist(ROLES, `expected a comma-separated list of ${ROLES.join(', ')}`)), v.minLength(1, 'expected at least one role')),
  secret: v.nullable(v.pipe(v.string(), v.minLength(16, 'expected at least 16 characters'))),
  logLevel: v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'expected a pino log level'),
  /** json, pretty (human-readable), or auto: pretty when stdout is a terminal */
  logFormat: v.picklist(['auto', 'json', 'pretty'], 'expected json, pretty or auto'),
  limits: v.object({
    httpBodyBytes: positive,
    eventDataBytes: positive,
    kvValueBytes: positive,
    kvKeysPerStore: positive,
    // docs/devices.md#limits: a store's `reload` message serialises to at most this many bytes
    kvStoreBytes: positive,
    mqttPacketBytes: positive,
    wsFrameBytes: positive,
    connectTimeoutMs: positive,
    // docs/operations.md#connection-limits: sockets one address may hold before their first request or CONNACK
    unauthenticatedSocketsPerAddress: positive,
    // docs/operations.md#connect-storms: new connections each MQTT listener passes on per second; more wait (0: no limit)
    connectRatePerSecond: v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 (no limit) or more')),
    // docs/operations.md#connect-storms: connections each MQTT listener has passed on without a CONNACK yet; more wait (0: no limit)
    connectsInFlight: v.pipe(v.number('expected a number'), v.integer('expected an integer'), v.minValue(0, 'expected 0 (no limit) or more')),
    listDefault: positive,
    listMax: positive,
    connectionsPerDevice: positive,
    // docs/concepts.md#command-outbox: unfinished commands one device may hold
    outboxPerDevice: positive,
    // docs/firmware.md#files: the largest firmware file a bundle component may carry
    firmwareFileBytes: positive,
    // docs/api.md#conventions: JSON nesting allowed in HTTP bodies and MQTT/WebSocket payloads
    jsonDepth: positive,
    // docs/devices.md#limits: a connection (MQTT, any WebSocket) with more output unsent is closed
    // (it stopped reading); replaces the undocumented broker.wsBufferedBytes
    connectionOutputBytes: positive,
  }),
  rateLimit: v.object({ enabled: v.boolean('expected true or false'), perSecond: positive, burst: positive }),
  mqttRateLimit: v.object({ publishesPerSecond: positive, burst: positive }),
  // docs/api.md#sign-in-throttling: failed logins (per account and client IP, per client IP, and per account
  // from everywhere: accountGlobalFreeFailures), self-signups (per client IP) and
  // claim-code / provisioning-token guesses (per client IP and credential) back off: free
  // failures, then a wait of baseDelaySeconds doubling up to maxDelaySeconds; counts are
  // forgotten windowSeconds after the last failure
  authThrottle: v.object({
    enabled: v.boolean('expected true or false'),
    accountFreeFailures: v.pipe(v.number('expected an integer'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more')),
    clientFreeFailures: v.pipe(v.number('expected an integer'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more')),
    accountGlobalFreeFailures: v.pipe(v.number('expected an integer'), v.integer('expected an integer'), v.minValue(0, 'expected 0 or more')),
    baseDelaySeconds: positive,
    maxDelaySeconds: positive,
    windowSeconds: positive,
  }),
  // drainTimeoutMs: a subscriber whose socket does not drain in time is dropped (Aedes);
  // wsPingIntervalMs: WebSocket peers are pinged this often, dropped after one missed answer
  // (the bound on unsent output is limits.connectionOutputBytes)
  broker: v.object({ drainTimeoutMs: positive, wsPingIntervalMs: positive }),
  sessions: v.object({ ttlSeconds: positive }),
  provisioning: v.object({ ttlSeconds: positive }),
  // docs/api.md#stream-tickets: how long a single-use WebSocket ticket may wait to be redeemed
  streamTickets: v.object({ ttlSeconds: positive }),
  accessLog: v.object({ flushMs: positive, batchSize: positive }),
  webhooks: v.object({
    allowPrivateTargets: v.boolean('expected true or false'),
    timeoutMs: positive,
    retryScheduleSeconds: v.pipe(v.array(positive), v.minLength(1, 'expected at least one delay')),
    pollMs: positive,
    concurrency: positive,
    // docs/webhooks.md#retries: a claimed delivery's lease, renewed while its worker lives
    leaseSeconds: positive,
  }),
  presence: v.object({ heartbeatMs: positive, nodeTimeoutMs: positive }),
  // docs/concepts.md#log-requests/docs/api.md#limits: a log file of at most maxFileBytes, sent in parts of partBytes; an upload with
  // no part for uploadTtlSeconds is abandoned
  logRequests: v.object({ maxFileBytes: positive, partBytes: positive, uploadTtlSeconds: positive }),
  // days each history is kept (0: forever); the job runs every intervalMs, batchSize rows a statement
  retention: v.object({
    accessLogDays: days,
    generalLogDays: days,
    eventDays: days,
    dataRecordDays: days,
    reportOutputDays: days,
    intervalMs: positive,
    batchSize: positive,
  }),
  // docs/timeseries.md#retention: days a time-series point is kept (0: forever), through the retention job
  tsdb: v.object({ retentionDays: days }),
  // docs/concepts.md#reports: schedule tick and run polling, the run lease, progress every progressRows rows,
  // at most maxRows rows a run, a webhook body carries outputs up to webhookMaxBytes
  reports: v.object({
    tickMs: positive,
    pollMs: positive,
    leaseSeconds: positive,
    concurrency: positive,
    progressRows: positive,
    maxRows: positive,
    webhookMaxBytes: positive,
  }),
  // docs/concepts.md#command-outbox: how often the worker expires overdue commands, and how many days
  // finished commands are kept
  outbox: v.object({ sweepIntervalMs: positive, retentionDays: days }),
  // docs/firmware.md#rollouts: how often the worker advances rollouts (waves, pacing, threshold,
  // announcements), and how long one worker holds a rollout it advances
  rollouts: v.object({ tickMs: positive, leaseSeconds: positive }),
  // docs/concepts.md#homes: the general log's line about devices in no home, one per project per summarySeconds
  homelessEvents: v.object({ summarySeconds: positive }),
  // SQLite's durability of a commit (README "Durability"): full = on disk before it is answered
  // cacheBytes: SQLite's page cache, per connection and per database file it opens (docs/operations.md#sizing)
  sqlite: v.object({
    synchronous: v.picklist(['full', 'normal'], 'expected full or normal'),
    cacheBytes: v.pipe(v.number('expected a number of bytes'), v.integer('expected an integer'), v.minValue(65536, 'expected at least 65536 (64 KiB)')),
  }),
});

export type Config = v.InferOutput<typeof ConfigSchema>;
export type Role = (typeof ROLES)[number];
