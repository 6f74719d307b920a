// Projects, their API keys and device classes (docs/api.md#credentials, docs/concepts.md).
import * as v from 'valibot';
import { SCOPES } from '../caller.js';
import { SlugSchema, TextSchema, TimeSchema } from '../validate.js';

export const COMMAND_ACTIONS = ['spec', 'mode'] as const;

/**
 * `allowUserSignup`: POST /users without a credential (self-signup) is allowed (docs/concepts.md);
 * `verifyEmails`: self-signups verify their address by mail (docs/concepts.md#accounts);
 * `commandActions`: which command actions the project accepts (docs/concepts.md#commands)
 */
export const ProjectSchema = v.object({
  id: v.number(),
  name: v.string(),
  allowUserSignup: v.boolean(),
  verifyEmails: v.boolean(),
  commandActions: v.picklist(COMMAND_ACTIONS),
  creationTime: TimeSchema,
});
export type Project = v.InferOutput<typeof ProjectSchema>;

/** the settings a project key with scope admin may change */
export const PatchProjectBodySchema = v.object({
  name: v.optional(v.pipe(TextSchema('name', 128), v.minLength(1, 'name is required'))),
  allowUserSignup: v.optional(v.boolean('allowUserSignup must be true or false')),
  verifyEmails: v.optional(v.boolean('verifyEmails must be true or false')),
  commandActions: v.optional(
    v.picklist(COMMAND_ACTIONS, (i) => `commandActions must be "spec" (lowercase actions) or "mode" (camelCase too); ${JSON.stringify(i.input)} is neither`),
  ),
});

export const CreateProjectBodySchema = v.object({
  name: v.pipe(TextSchema('name', 128), v.minLength(1, 'name is required')),
});

/** an API key as listed: never its hash, never its plaintext */
export const ApiKeySchema = v.object({
  id: v.string(),
  projectId: v.number(),
  name: v.string(),
  scopes: v.array(v.string()),
  creationTime: TimeSchema,
});
export type ApiKey = v.InferOutput<typeof ApiKeySchema>;

/** the answer to a creation: the only time the plaintext `key` is shown (docs/concepts.md) */
export const CreatedApiKeySchema = v.object({ ...ApiKeySchema.entries, key: v.string() });
export type CreatedApiKey = v.InferOutput<typeof CreatedApiKeySchema>;

export const CreateApiKeyBodySchema = v.object({
  name: v.pipe(TextSchema('name', 128), v.minLength(1, 'name is required')),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES, `each scope must be one of ${SCOPES.join(', ')}`), 'scopes must be an array of scope names'),
    v.minLength(1, 'scopes must name at least one scope'),
    v.transform((s) => [...new Set(s)]),
  ),
});

export const DeviceClassSchema = v.object({
  id: v.string(),
  projectId: v.number(),
  name: v.optional(v.string()),
  description: v.optional(v.string()),
  certificateRequired: v.optional(
    v.pipe(v.boolean(), v.description('devices of the class sign in with a client certificate only (docs/tls.md#client-certificates); shown when true')),
  ),
  creationTime: TimeSchema,
});
export type DeviceClass = v.InferOutput<typeof DeviceClassSchema>;

export const CreateDeviceClassBodySchema = v.object({
  id: SlugSchema('id'),
  name: v.optional(TextSchema('name', 128)),
  description: v.optional(TextSchema('description', 1024)),
  certificateRequired: v.optional(
    v.pipe(v.boolean('certificateRequired must be true or false'), v.description('devices of the class sign in with a client certificate only')),
  ),
});

/** docs/tls.md#client-certificates: the one class setting that changes after creation */
export const UpdateDeviceClassBodySchema = v.object({
  certificateRequired: v.pipe(
    v.boolean('certificateRequired must be true or false'),
    v.description('true: devices of the class sign in with a client certificate only (a key alone is refused)'),
  ),
});

/**
 * docs/api.md#fleet-figures: `perMinute` holds the last 60 whole minutes and the current one,
 * oldest first (`minute`: its first instant); deliveries `succeeded`/`failed` over those same
 * minutes, `retrying` now; `oldestPendingSeconds` null when nothing waits
 */
export const FleetStatsSchema = v.object({
  devices: v.pipe(
    v.object({
      total: v.pipe(v.number(), v.description("the project's devices")),
      connected: v.pipe(v.number(), v.description('devices with a live connection on any node')),
    }),
    v.description('the devices of the project'),
  ),
  events: v.pipe(
    v.object({
      perMinute: v.pipe(
        v.array(
          v.object({
            minute: v.pipe(TimeSchema, v.description("the minute's first instant (UTC)")),
            count: v.pipe(v.number(), v.description('events accepted in that minute')),
          }),
        ),
        v.description('the last 60 whole minutes and the current one, oldest first'),
      ),
    }),
    v.description('events accepted: device, project key and system events'),
  ),
  deliveries: v.pipe(
    v.object({
      succeeded: v.pipe(v.number(), v.description('deliveries that succeeded over the minutes of perMinute')),
      failed: v.pipe(v.number(), v.description('deliveries that failed for good (or were dropped) over those minutes')),
      retrying: v.pipe(v.number(), v.description('unfinished deliveries that failed at least once, now')),
      oldestPendingSeconds: v.pipe(v.nullable(v.number()), v.description('age of the oldest unfinished delivery; null when none')),
    }),
    v.description('webhook deliveries of every kind'),
  ),
});
export type FleetStats = v.InferOutput<typeof FleetStatsSchema>;
