// Data posts and data sources (docs/concepts.md#data-sources): request bodies and answers.
import * as v from 'valibot';
import { SlugSchema, IdQuerySchema, jsonObject } from '../validate.js';
import { WebhookUrlSchema } from '../module/schemas.js';
import { pageQueryEntries, timeQuery } from '../log/query.js';

/** like module ids (docs/webhooks.md): 3 to 64 lowercase letters, digits, `-`, `_` */
export const DATA_SOURCE_ID = /^[a-z0-9][a-z0-9_-]{1,62}[a-z0-9]$/;
export const MAX_RECORDS_PER_POST = 1000;
export const MAX_SOURCES_PER_PROJECT = 100;

const Name = v.pipe(v.string('name must be a string'), v.trim(), v.minLength(1, 'name is required'), v.maxLength(128, 'name is at most 128 characters'));
const DeviceClasses = v.pipe(v.array(SlugSchema('a device class')), v.maxLength(100, 'at most 100 device classes'));
const RetentionDays = v.pipe(
  v.number('retentionDays must be a number'),
  v.integer('retentionDays must be an integer'),
  v.minValue(1, 'retentionDays is 1 to 3650'),
  v.maxValue(3650, 'retentionDays is 1 to 3650'),
);

export const CreateDataSourceSchema = v.object({
  id: v.optional(
    v.pipe(
      v.string('id must be a string'),
      v.regex(DATA_SOURCE_ID, 'id must be 3 to 64 lowercase letters, digits, "-" or "_", starting and ending with a letter or digit'),
    ),
  ),
  name: Name,
  type: v.picklist(['store', 'webhook'], 'type must be "store" or "webhook"'),
  deviceClasses: v.optional(v.nullable(DeviceClasses)),
  url: v.optional(WebhookUrlSchema),
  retentionDays: v.optional(v.nullable(RetentionDays)),
});
export type CreateDataSourceInput = v.InferOutput<typeof CreateDataSourceSchema>;

/** `id` and `type` are read-only: sent back unchanged they are ignored */
export const PatchDataSourceSchema = v.object({
  id: v.optional(v.string()),
  type: v.optional(v.string()),
  name: v.optional(Name),
  deviceClasses: v.optional(v.nullable(DeviceClasses)),
  url: v.optional(WebhookUrlSchema),
  retentionDays: v.optional(v.nullable(RetentionDays)),
  /** a new signing key for a webhook source, shown in this answer only */
  rotateKey: v.optional(v.boolean('rotateKey must be true or false')),
});

export const DataSourceSchema = v.object({
  id: v.string(),
  projectId: v.number(),
  name: v.string(),
  type: v.picklist(['store', 'webhook']),
  deviceClasses: v.optional(v.array(v.string())),
  url: v.optional(v.string()),
  /** webhook signing key: in full when just created or rotated, masked otherwise */
  key: v.optional(v.string()),
  retentionDays: v.optional(v.number()),
  /** a webhook source whose deliveries fail refuses new batches for a while (docs/concepts.md#data-sources `partial`) */
  health: v.optional(v.object({ failingSince: v.string(), lastError: v.string() })),
  creationTime: v.string(),
  modificationTime: v.string(),
});
export type DataSource = v.InferOutput<typeof DataSourceSchema>;

/** docs/concepts.md#data-sources: `data`, a required array of objects (docs/concepts.md#data-sources: 1 to 1000 records) */
export const DataPostSchema = v.object({
  data: v.pipe(
    v.array(
      // an object, not an array (valibot's record would take an array's indexes as keys)
      jsonObject('each record must be an object'),
      'data must be an array of objects',
    ),
    v.minLength(1, 'data must hold at least one record'),
    v.maxLength(MAX_RECORDS_PER_POST, `data holds at most ${MAX_RECORDS_PER_POST} records`),
  ),
});

/** docs/concepts.md#data-sources answer: failedDataSources as [dataSourceId, reason] pairs */
export const DataPostResultSchema = v.object({
  result: v.picklist(['success', 'partial']),
  failedDataSources: v.optional(v.array(v.array(v.string()))),
});
export type DataPostResult = v.InferOutput<typeof DataPostResultSchema>;

export const RecordsQuerySchema = v.object({ deviceId: IdQuerySchema('deviceId'), since: timeQuery('since'), until: timeQuery('until'), ...pageQueryEntries });
export type RecordsQuery = v.InferOutput<typeof RecordsQuerySchema>;

export const DataRecordSchema = v.object({ deviceId: v.number(), timestamp: v.string(), data: v.record(v.string(), v.unknown()) });
