// Scheduled reports (docs/concepts.md#reports): what a client sends and what it gets back.
import * as v from 'valibot';
import { IdSchema, SlugSchema, TimeSchema, pageDocEntries, readOnlyEntries } from '../validate.js';
import { ID_PATTERN } from '../id.js';
import { WebhookUrlSchema, isSubscriptionLine } from '../module/schemas.js';

export const REPORT_KINDS = ['devices', 'connectivity', 'events', 'deliveries'] as const;
export const REPORT_FORMATS = ['csv', 'json'] as const;
/** kinds that read a time window ending at the run's due time */
export const WINDOWED = ['connectivity', 'events', 'deliveries'] as const;
export const DEFAULT_WINDOW = '24h';
/** the fields of a report the service sets: a PATCH may send them back unchanged, never change them */
export const REPORT_READ_ONLY = ['id', 'projectId', 'creationTime', 'lastRunTime', 'nextRunTime'] as const;

// "90m", "24h", "7d": one window, up to a year
const WINDOW = /^([1-9]\d{0,5})(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export const MAX_WINDOW_MS = 366 * 86_400_000;
export function windowMs(window: string): number {
  const m = WINDOW.exec(window);
  if (!m) return NaN;
  return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}
const WindowSchema = v.pipe(
  v.string('window must be a string such as "24h"'),
  v.check((w) => windowMs(w) <= MAX_WINDOW_MS, 'window must be minutes, hours or days such as "90m", "24h" or "7d", at most 366 days'),
);

const Name = v.pipe(v.string('name must be a string'), v.trim(), v.minLength(1, 'name is required'), v.maxLength(128, 'name is at most 128 characters'));
const Description = v.pipe(v.string('description must be a string'), v.maxLength(1024, 'description is at most 1024 characters'));

export const FilterSchema = v.object({
  homeId: v.optional(IdSchema),
  deviceClass: v.optional(SlugSchema('filter.deviceClass')),
  eventTypes: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.check(isSubscriptionLine, 'each event type must match docs/concepts.md#events (or be a _system_ event)'))),
      v.minLength(1, 'eventTypes may not be empty: leave it out for every type'),
      v.maxLength(50, 'at most 50 event types'),
    ),
  ),
});

const Cron = v.pipe(
  v.string('schedule.cron must be a string'),
  v.trim(),
  v.minLength(1, 'schedule.cron is required'),
  v.maxLength(128, 'schedule.cron is at most 128 characters'),
);
const Zone = v.pipe(v.string('schedule.timezone must be a string'), v.maxLength(64, 'schedule.timezone is at most 64 characters'));
/** a new report's zone defaults to UTC */
export const ScheduleSchema = v.object({ cron: Cron, timezone: v.optional(Zone, 'UTC') });
/** PATCH: a schedule without a zone keeps the report's */
const SchedulePatchSchema = v.object({ cron: Cron, timezone: v.optional(Zone) });

export const DestinationSchema = v.variant(
  'type',
  [v.object({ type: v.literal('store') }), v.object({ type: v.literal('webhook'), url: WebhookUrlSchema, key: v.optional(v.string()) })],
  'destination.type must be "store" or "webhook"',
);

export const CreateReportSchema = v.object({
  projectId: v.optional(IdSchema),
  name: Name,
  description: v.optional(v.nullable(Description)),
  kind: v.picklist(REPORT_KINDS, `kind must be one of ${REPORT_KINDS.join(', ')}`),
  filter: v.optional(v.nullable(FilterSchema)),
  window: v.optional(v.nullable(WindowSchema)),
  format: v.optional(v.picklist(REPORT_FORMATS, 'format must be "csv" or "json"'), 'csv'),
  schedule: ScheduleSchema,
  destination: v.optional(DestinationSchema, { type: 'store' }),
  enabled: v.optional(v.boolean('enabled must be true or false'), true),
});
export type CreateReportInput = v.InferOutput<typeof CreateReportSchema>;

/** every field optional (no defaults: what is not sent stays); read-only ones sent back unchanged are ignored */
export const PatchReportSchema = v.object({
  name: v.optional(Name),
  description: v.optional(v.nullable(Description)),
  kind: v.optional(v.picklist(REPORT_KINDS, `kind must be one of ${REPORT_KINDS.join(', ')}`)),
  filter: v.optional(v.nullable(FilterSchema)),
  window: v.optional(v.nullable(WindowSchema)),
  format: v.optional(v.picklist(REPORT_FORMATS, 'format must be "csv" or "json"')),
  schedule: v.optional(SchedulePatchSchema),
  destination: v.optional(DestinationSchema),
  enabled: v.optional(v.boolean('enabled must be true or false')),
  /** a new signing key for a webhook destination, shown in this answer only */
  rotateKey: v.optional(v.boolean('rotateKey must be true or false')),
  ...readOnlyEntries(REPORT_READ_ONLY),
});
export type PatchReportInput = v.InferOutput<typeof PatchReportSchema>;

export const ReportSchema = v.object({
  id: v.string(),
  projectId: v.number(),
  name: v.string(),
  description: v.optional(v.string()),
  kind: v.picklist(REPORT_KINDS),
  filter: v.optional(FilterSchema),
  window: v.optional(v.string()),
  format: v.picklist(REPORT_FORMATS),
  schedule: v.object({ cron: v.string(), timezone: v.string() }),
  destination: DestinationSchema,
  enabled: v.boolean(),
  creationTime: TimeSchema,
  lastRunTime: v.optional(TimeSchema),
  nextRunTime: v.optional(TimeSchema),
});
export type Report = v.InferOutput<typeof ReportSchema>;

export const RunSchema = v.object({
  id: v.string(),
  reportId: v.string(),
  trigger: v.picklist(['manual', 'schedule']),
  status: v.picklist(['queued', 'running', 'success', 'failure']),
  startTime: v.optional(TimeSchema),
  endTime: v.optional(TimeSchema),
  rows: v.optional(v.number()),
  error: v.optional(v.string()),
  /** the window the run covered (docs/concepts.md#reports `window`), for windowed kinds */
  since: v.optional(TimeSchema),
  until: v.optional(TimeSchema),
  outputBytes: v.optional(v.number()),
});
export type Run = v.InferOutput<typeof RunSchema>;

export const ReportListQuerySchema = v.object({
  projectId: v.optional(v.pipe(v.string(), v.regex(ID_PATTERN, 'projectId must be a positive integer'), v.transform(Number))),
  ...pageDocEntries,
});
