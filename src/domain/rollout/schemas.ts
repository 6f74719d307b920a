// Firmware rollouts (docs/firmware.md#rollouts): the creation body, the state change, the list
// query, and the Rollout and rollout device as answered.
import * as v from 'valibot';
import { IdSchema, SlugSchema, TextSchema, pageDocEntries } from '../validate.js';
import { TTL_DEFAULT_SECONDS, ttlSchema } from '../command/outbox-schemas.js';

export const ROLLOUT_STATES = ['running', 'paused', 'completed', 'aborted'] as const;
export const ROLLOUT_DEVICE_STATES = ['pending', 'notified', 'downloading', 'installed', 'failed'] as const;
export const FAILURE_THRESHOLD_DEFAULT = 10;
/** docs/firmware.md#rollouts: results needed before the threshold can pause a rollout */
export const THRESHOLD_MIN_RESULTS = 5;
export const ROLLOUT_TTL_DEFAULT = TTL_DEFAULT_SECONDS;
/** docs/firmware.md#rollouts: at most this many devices named in `target.deviceIds`, and waves */
export const TARGET_IDS_MAX = 10_000;
export const WAVES_MAX = 20;
/** the action of the notification command (docs/firmware.md#the-device-side) */
export const FIRMWARE_UPDATE_ACTION = 'firmware-update';
export const ROLLOUT_UPDATED = '_rolloutUpdated_';

const percent = (what: string) =>
  v.pipe(v.number(`${what} must be a number`), v.minValue(0, `${what} must be 0 to 100`), v.maxValue(100, `${what} must be 0 to 100`));

export const WaveSchema = v.object({
  percent: v.pipe(percent('percent'), v.minValue(Number.MIN_VALUE, 'percent must be more than 0'), v.description('cumulative share of the targeted devices')),
  afterMinutes: v.optional(
    v.pipe(
      v.number('afterMinutes must be a number'),
      v.minValue(0, 'afterMinutes must be 0 or more'),
      v.maxValue(525_600, 'afterMinutes must be at most 525600 (a year)'),
      v.description('minutes after the previous wave began (fractions allowed); wave 0: after creation'),
    ),
  ),
});

export const RolloutTargetSchema = v.object({
  channel: v.optional(SlugSchema('target.channel')),
  tag: v.optional(TextSchema('target.tag', 256)),
  deviceIds: v.optional(
    v.pipe(
      v.array(IdSchema, 'target.deviceIds must be an array of device ids'),
      v.description("only these devices (of the bundle's class)"),
      v.maxLength(TARGET_IDS_MAX, `target.deviceIds holds at most ${TARGET_IDS_MAX} ids`),
    ),
  ),
});

export const CreateRolloutSchema = v.object({
  bundleId: SlugSchema('bundleId'),
  name: v.optional(TextSchema('name', 256)),
  target: v.optional(v.pipe(RolloutTargetSchema, v.description("narrows the bundle's device class: by channel, tag or device ids (all given must match)"))),
  waves: v.optional(
    v.pipe(
      v.array(WaveSchema, 'waves must be an array'),
      v.description('waves in order, cumulative percents, the last 100 (default one wave of 100)'),
      v.minLength(1, 'waves needs at least one wave'),
      v.maxLength(WAVES_MAX, `at most ${WAVES_MAX} waves`),
      v.check((ws) => ws.every((w, i) => i === 0 || w.percent > ws[i - 1]!.percent), 'wave percents are cumulative: each larger than the one before'),
      v.check((ws) => ws[ws.length - 1]!.percent === 100, 'the last wave must reach percent 100 (pause the rollout to stop after a wave)'),
    ),
  ),
  failureThreshold: v.optional(v.pipe(percent('failureThreshold'), v.description('percent of failed results that pauses the rollout (default 10)'))),
  ratePerMinute: v.optional(
    v.pipe(
      v.number('ratePerMinute must be a number'),
      v.description('at most this many devices notified per minute (default: no limit)'),
      v.integer('ratePerMinute must be an integer'),
      v.minValue(1, 'ratePerMinute must be at least 1'),
      v.maxValue(1_000_000, 'ratePerMinute must be at most 1000000'),
    ),
  ),
  ttl: ttlSchema('seconds a device has to install after it is notified: the TTL of its command (default 86400)'),
});

export const PatchRolloutSchema = v.object({
  state: v.pipe(
    v.picklist(['paused', 'running', 'aborted'], 'state must be "paused", "running" or "aborted"'),
    v.description('paused stops new notifications, running resumes, aborted cancels the waiting commands'),
  ),
});

export const RolloutDevicesQuerySchema = v.object({
  state: v.optional(v.picklist(ROLLOUT_DEVICE_STATES, `state must be one of ${ROLLOUT_DEVICE_STATES.join(', ')}`)),
  ...pageDocEntries,
});

const n = (d: string) => v.pipe(v.number(), v.description(d));
const CountsSchema = v.pipe(
  v.object({
    targeted: n('devices the rollout targets'),
    pending: n('devices not yet notified'),
    notified: n('devices whose command was written to them'),
    downloading: n('devices that asked for a file of the bundle'),
    installed: n('devices that recorded the bundle'),
    failed: n('devices that answered error, or did not install within the ttl'),
  }),
  v.description('how many targeted devices are in each state'),
);

export const RolloutSchema = v.object({
  id: v.string(),
  projectId: v.number(),
  bundleId: v.string(),
  name: v.string(),
  state: v.pipe(v.picklist(ROLLOUT_STATES), v.description('running, paused (by hand or by the failure threshold), completed or aborted')),
  target: v.pipe(
    v.object({
      channel: v.optional(v.pipe(v.string(), v.description('only devices on this channel'))),
      tag: v.optional(v.pipe(v.string(), v.description('only devices with this tag'))),
      deviceIds: v.optional(v.pipe(v.array(v.number()), v.description('only these devices'))),
    }),
    v.description("narrows the bundle's device class"),
  ),
  waves: v.pipe(
    v.array(
      v.object({
        percent: n('cumulative share of the targeted devices'),
        afterMinutes: v.optional(n('minutes after the previous wave began')),
      }),
    ),
    v.description('waves, in order'),
  ),
  currentWave: v.pipe(v.number(), v.description('index into waves of the wave being notified')),
  failureThreshold: n('percent of failed results that pauses the rollout'),
  counts: CountsSchema,
  creationTime: v.string(),
  updateTime: v.string(),
});
export type Rollout = v.InferOutput<typeof RolloutSchema>;

export const RolloutDeviceSchema = v.object({
  deviceId: v.number(),
  state: v.pipe(v.picklist(ROLLOUT_DEVICE_STATES), v.description('pending, notified, downloading, installed or failed')),
  updateTime: v.pipe(v.string(), v.description('when it last changed state')),
  error: v.optional(v.pipe(v.string(), v.description('why it failed'))),
});
export type RolloutDevice = v.InferOutput<typeof RolloutDeviceSchema>;
