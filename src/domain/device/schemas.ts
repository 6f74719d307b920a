// The device resource (docs/concepts.md#devices) and the bodies of the device operations (docs/api.md#device-operations, docs/concepts.md#devices).
import * as v from 'valibot';
import { IdQuerySchema, IdSchema, SlugSchema, TextSchema, TimeSchema, pageDocEntries } from '../validate.js';

/** docs/concepts.md#devices field for field; optional fields that are null are left out of the answer */
export const DeviceSchema = v.object({
  id: v.number(),
  projectId: v.number(),
  deviceClass: v.string(),
  homeId: v.optional(v.number()),
  name: v.optional(v.string()),
  description: v.optional(v.string()),
  tag: v.optional(v.string()),
  apiKey: v.optional(v.string()),
  claimCode: v.optional(v.string()),
  claimExpirationTime: v.optional(TimeSchema),
  claimTime: v.optional(TimeSchema),
  creationTime: v.optional(TimeSchema),
  bundleInstalled: v.optional(v.string()),
  bundleInstallTime: v.optional(TimeSchema),
  channel: v.optional(v.string()),
  isConnected: v.optional(v.boolean()),
  lastConnectTime: v.optional(TimeSchema),
  lastDisconnectTime: v.optional(TimeSchema),
});
export type Device = v.InferOutput<typeof DeviceSchema>;
export const DEVICE_FIELDS = Object.keys(DeviceSchema.entries) as (keyof Device)[];

const Name = TextSchema('name', 256);
const Description = TextSchema('description', 4096);
const Tag = TextSchema('tag', 256);
const Channel = SlugSchema('channel');

/** docs/api.md#device-operations rule 1: every field optional; which form applies is decided by addDeviceHome */
export const AddDeviceBodySchema = v.object({
  token: v.optional(v.pipe(v.string('token must be a string'), v.maxLength(256, 'token is too long'))),
  claimCode: v.optional(v.pipe(v.string('claimCode must be a string'), v.maxLength(128, 'claimCode is too long'))),
  homeId: v.optional(IdSchema),
  projectId: v.optional(IdSchema),
  deviceClass: v.optional(SlugSchema('deviceClass')),
  name: v.optional(Name),
  description: v.optional(Description),
  tag: v.optional(Tag),
  channel: v.optional(Channel),
  bundleInstalled: v.optional(SlugSchema('bundleInstalled')),
});

/** writable fields; every other Device field is read-only (checked against what the caller reads) */
export const PatchDeviceBodySchema = v.looseObject({
  name: v.optional(v.nullable(Name)),
  description: v.optional(v.nullable(Description)),
  tag: v.optional(v.nullable(Tag)),
  /** project keys only: null removes the device from its home */
  homeId: v.optional(v.nullable(IdSchema)),
  /** project keys only: null removes the claim code */
  claimCode: v.optional(v.nullable(v.pipe(v.string('claimCode must be a string'), v.maxLength(128, 'claimCode is too long')))),
});

export const TagBodySchema = v.object({ tag: Tag });

/** docs/concepts.md#firmware-bundles firmware installation record */
export const FirmwareBodySchema = v.object({ bundleId: SlugSchema('bundleId') });

/** docs/concepts.md#firmware-bundles */
export const ConfigSchemaSchema = v.object({
  componentName: v.optional(v.string()),
  componentVersionName: v.optional(v.string()),
  deviceConfigSchema: v.optional(v.array(v.unknown())),
});

/** Update device claimable state (docs/devices.md#claiming-and-provisioning): duration (s) required when claimable is true */
export const RegistrationBodySchema = v.pipe(
  v.object({
    deviceId: IdSchema,
    claimable: v.boolean('claimable must be true or false'),
    duration: v.optional(
      v.pipe(
        v.number('duration must be a number of seconds'),
        v.integer('duration must be whole seconds'),
        v.minValue(1, 'duration must be 1 to 86400 seconds'),
        v.maxValue(86400, 'duration must be 1 to 86400 seconds'),
      ),
    ),
  }),
  v.forward(
    v.check((b) => !b.claimable || b.duration !== undefined, 'duration is required when claimable is true'),
    ['duration'],
  ),
);
export const RegistrationResponseSchema = v.object({ claimExpirationTime: TimeSchema });

export const DeviceListQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  homeId: IdQuerySchema('homeId'),
  deviceClass: v.optional(v.pipe(v.string(), v.maxLength(128, 'deviceClass is too long'))),
  tag: v.optional(v.pipe(v.string(), v.maxLength(256, 'tag is too long'))),
  isConnected: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'isConnected must be true or false'),
      v.transform((s) => s === 'true'),
    ),
  ),
  search: v.optional(v.pipe(v.string(), v.maxLength(256, 'search is too long'))),
  /** docs/api.md#device-lists: keyset paging, the devices after this id (by id) */
  afterId: IdQuerySchema('afterId'),
  /** docs/api.md#device-lists: only devices in a home (true) or in none (false) */
  inHome: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'inHome must be true or false'),
      v.transform((s) => s === 'true'),
    ),
  ),
  /** docs/api.md#device-lists: false leaves the count out (the range header's total is `*`) */
  total: v.optional(
    v.pipe(
      v.picklist(['true', 'false'], 'total must be true or false'),
      v.transform((s) => s === 'true'),
    ),
  ),
  ...pageDocEntries,
});
export type DeviceListFilter = Omit<v.InferOutput<typeof DeviceListQuerySchema>, 'skip' | 'limit' | 'total'>;
