// Smart modules (docs/webhooks.md): what a client may send and what it gets back.
import * as v from 'valibot';

// docs/webhooks.md: 3 or more lowercase letters, digits, `-`, `_`, starting and ending with a letter or digit
export const MODULE_ID_PATTERN = /^[a-z0-9][a-z0-9_-]+[a-z0-9]$/;
export const ModuleIdSchema = v.pipe(
  v.string('id must be a string'),
  v.maxLength(64, 'id must be at most 64 characters'),
  v.regex(MODULE_ID_PATTERN, 'id must be 3 or more lowercase letters, digits, "-" or "_", starting and ending with a letter or digit'),
);

// docs/concepts.md#events event types, or a system event `_name_` (docs/devices.md#mqtt), or `*` for all (docs/webhooks.md#subscriptions).
// The documented pattern ^[a-zA-Z](?:[\-_]?[a-zA-Z0-9]+)*$ written without its nested quantifier
// (same language, linear time on hostile input).
const EVENT_TYPE = /^[a-zA-Z][a-zA-Z0-9]*(?:[-_][a-zA-Z0-9]+)*$/;
export const isSubscriptionLine = (s: string): boolean =>
  s === '*' || EVENT_TYPE.test(s) || (s.length > 2 && s.startsWith('_') && s.endsWith('_') && EVENT_TYPE.test(s.slice(1, -1)));

const MAX_SUBSCRIPTIONS = 200;

/** docs/webhooks.md#subscriptions: one type per line (an array of lines is accepted too); blank means all (`*`) */
export const SubscriptionsSchema = v.pipe(
  v.union([v.string(), v.array(v.string())], 'subscriptions must be event types one per line'),
  v.transform((x) => (Array.isArray(x) ? x : x.split(/\r?\n/)).map((s) => s.trim()).filter((s) => s !== '')),
  v.check((lines) => lines.every(isSubscriptionLine), 'each subscription line must be "*" or an event type (docs/concepts.md#events, or a _system_ event)'),
  v.maxLength(MAX_SUBSCRIPTIONS, `at most ${MAX_SUBSCRIPTIONS} subscription lines`),
  v.transform((lines) => (lines.length === 0 ? ['*'] : [...new Set(lines)])),
);

export const WebhookUrlSchema = v.pipe(
  v.string('url must be a string'),
  v.trim(),
  v.minLength(1, 'url is required'),
  v.maxLength(2048, 'url must be at most 2048 characters'),
  v.url('url must be an absolute http or https URL'),
);

// docs/webhooks.md#templates: a header name is sent as written, so it is bounded like a value (receivers
// refuse header lines of a few KiB)
export const HeaderTemplates = v.pipe(
  v.record(
    v.pipe(v.string(), v.maxLength(256, 'a header name is at most 256 characters')),
    v.pipe(v.string('header values must be strings'), v.maxLength(8192, 'a header value template is at most 8192 characters')),
  ),
  v.maxEntries(32, 'at most 32 headers'),
);
export const BodyTemplate = v.pipe(v.string('body must be a string'), v.maxLength(65536, 'body template is at most 65536 characters'));
const Description = v.pipe(v.string('description must be a string'), v.maxLength(1024, 'description is at most 1024 characters'));

export const EventWebhookInput = v.object({
  url: WebhookUrlSchema,
  subscriptions: v.optional(SubscriptionsSchema),
  headers: v.optional(v.nullable(HeaderTemplates)),
  body: v.optional(v.nullable(BodyTemplate)),
});
export const CommandWebhookInput = v.object({ url: WebhookUrlSchema });

/** docs/timeseries.md#the-module: the event types whose `timeSeriesData` a tsdb module stores (default `timeSeriesData`) */
export const TsdbSettingsSchema = v.object({
  eventTypes: v.optional(
    v.pipe(
      v.array(v.pipe(v.string('event types are strings'), v.regex(EVENT_TYPE, 'each event type must be an event type (docs/concepts.md#events)'))),
      v.minLength(1, 'at least one event type'),
      v.maxLength(32, 'at most 32 event types'),
      v.transform((xs) => [...new Set(xs)]),
    ),
  ),
});

export const ModuleCreateSchema = v.object({
  id: ModuleIdSchema,
  moduleType: v.optional(v.picklist(['webhooks', 'tsdb'], 'moduleType must be "webhooks" or "tsdb"')),
  tsdb: v.optional(v.nullable(TsdbSettingsSchema)),
  description: v.optional(v.nullable(Description)),
  eventWebhook: v.optional(v.nullable(EventWebhookInput)),
  commandWebhook: v.optional(v.nullable(CommandWebhookInput)),
});
export type ModuleCreateInput = v.InferOutput<typeof ModuleCreateSchema>;

/** PATCH merges field by field; `null` removes a webhook; `enabled: true` turns a disabled one on */
export const ModulePatchSchema = v.object({
  description: v.optional(v.nullable(Description)),
  eventWebhook: v.optional(
    v.nullable(
      v.object({
        url: v.optional(WebhookUrlSchema),
        subscriptions: v.optional(SubscriptionsSchema),
        headers: v.optional(v.nullable(HeaderTemplates)),
        body: v.optional(v.nullable(BodyTemplate)),
        enabled: v.optional(v.boolean('enabled must be true or false')),
      }),
    ),
  ),
  commandWebhook: v.optional(v.nullable(v.object({ url: v.optional(WebhookUrlSchema), enabled: v.optional(v.boolean('enabled must be true or false')) }))),
});
export type ModulePatchInput = v.InferOutput<typeof ModulePatchSchema>;

export const RotateKeysSchema = v.object({
  webhook: v.optional(v.picklist(['event', 'command', 'both'], 'webhook must be "event", "command" or "both"')),
});

const WebhookState = {
  /** the webhook key: in full in the answer to creation and rotation, masked elsewhere */
  key: v.string(),
  enabled: v.boolean(),
  disabledTime: v.optional(v.string()),
  disabledReason: v.optional(v.string()),
};
export const ModuleSchema = v.object({
  id: v.string(),
  projectId: v.number(),
  moduleType: v.picklist(['webhooks', 'tsdb']),
  description: v.optional(v.string()),
  /** a tsdb module's settings (docs/timeseries.md#the-module) */
  tsdb: v.optional(v.object({ eventTypes: v.array(v.string()) })),
  eventWebhook: v.optional(
    v.object({
      url: v.string(),
      /** one event type per line */
      subscriptions: v.string(),
      headers: v.optional(v.record(v.string(), v.string())),
      body: v.optional(v.string()),
      ...WebhookState,
    }),
  ),
  commandWebhook: v.optional(v.object({ url: v.string(), ...WebhookState })),
  creationTime: v.string(),
  modificationTime: v.string(),
});
export type Module = v.InferOutput<typeof ModuleSchema>;

/** what a home member sees of the project's modules (no targets, no keys) */
export const ModuleBriefSchema = v.object({ id: v.string(), moduleType: v.picklist(['webhooks', 'tsdb']), description: v.optional(v.string()) });
