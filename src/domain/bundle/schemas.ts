// Firmware bundles (docs/concepts.md): id per docs/concepts.md#firmware-bundles, one device class, an optional channel, and the
// components whose config schemas getDeviceConfigurationSchemas returns (docs/concepts.md#firmware-bundles).
import * as v from 'valibot';
import { IdQuerySchema, IdSchema, SlugSchema, TextSchema, TimeSchema, pageDocEntries } from '../validate.js';

export const BundleComponentSchema = v.object({
  componentName: v.pipe(TextSchema('componentName', 128), v.minLength(1, 'componentName is required')),
  componentVersionName: v.pipe(TextSchema('componentVersionName', 128), v.minLength(1, 'componentVersionName is required')),
  filename: v.optional(TextSchema('filename', 256)),
  checksum: v.optional(TextSchema('checksum', 256)),
  url: v.optional(v.pipe(TextSchema('url', 2048), v.url('url must be an absolute URL'))),
  deviceConfigSchema: v.optional(v.array(v.unknown(), 'deviceConfigSchema must be an array')),
});

export const CreateBundleBodySchema = v.object({
  id: SlugSchema('id'),
  projectId: IdSchema,
  name: v.optional(TextSchema('name', 256)),
  description: v.optional(TextSchema('description', 4096)),
  deviceClass: SlugSchema('deviceClass'),
  channel: v.optional(SlugSchema('channel')),
  components: v.pipe(v.array(BundleComponentSchema, 'components must be an array'), v.maxLength(100, 'at most 100 components')),
});

export const BundleSchema = v.object({
  id: v.string(),
  projectId: v.number(),
  name: v.optional(v.string()),
  description: v.optional(v.string()),
  deviceClass: v.string(),
  channel: v.optional(v.string()),
  components: v.array(
    v.object({
      componentName: v.string(),
      componentVersionName: v.string(),
      filename: v.optional(v.string()),
      checksum: v.optional(v.string()),
      url: v.optional(v.string()),
      deviceConfigSchema: v.optional(v.array(v.unknown())),
    }),
  ),
  creationTime: TimeSchema,
});
export type Bundle = v.InferOutput<typeof BundleSchema>;

export const BundleListQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  deviceClass: v.optional(v.pipe(v.string(), v.maxLength(128, 'deviceClass is too long'))),
  channel: v.optional(v.pipe(v.string(), v.maxLength(128, 'channel is too long'))),
  ...pageDocEntries,
});
