// The command outbox (docs/concepts.md#command-outbox): the creation body, the device's answer,
// the list query and the Command as answered. The action and parameters are the direct
// command's own schema (schemas.ts), so both paths accept the same commands.
import * as v from 'valibot';
import { KV_KEY_PATTERN } from '../kv/schemas.js';
import { CommandBodySchema, plainObject } from './schemas.js';

export const COMMAND_STATES = ['queued', 'sent', 'delivered', 'acked', 'failed', 'expired', 'cancelled'] as const;
/** docs/concepts.md#command-outbox: ttl bounds and default, in seconds */
export const TTL_MAX_SECONDS = 2_592_000;
export const TTL_DEFAULT_SECONDS = 86_400;
/** docs/concepts.md#command-outbox: the largest `result` a device may answer with */
export const RESULT_MAX_BYTES = 65_536;

/** a command's `ttl` in whole seconds within the outbox's bounds (a rollout's `ttl` is its command's) */
export const ttlSchema = (description: string) =>
  v.optional(
    v.pipe(
      v.number('ttl must be a number of seconds'),
      v.integer('ttl must be an integer'),
      v.minValue(1, 'ttl must be at least 1 second'),
      v.maxValue(TTL_MAX_SECONDS, `ttl must be at most ${TTL_MAX_SECONDS} seconds (30 days)`),
      v.description(description),
    ),
  );

/** only the outbox's own fields: the action and parameters are parsed with CommandBodySchema */
export const OutboxFieldsSchema = v.object({
  ttl: ttlSchema('Seconds the command may wait for the device (default 86400)'),
  key: v.optional(
    v.pipe(
      v.string('key must be a string'),
      v.minLength(1, 'key may not be empty'),
      v.maxLength(64, 'key must be at most 64 characters'),
      v.regex(KV_KEY_PATTERN, 'key must match ^[a-zA-Z0-9]([a-zA-Z0-9\\-_\\:]*[a-zA-Z0-9])*$'),
      v.description('Idempotency key: the same key for the same device, while the earlier command is not expired, answers that command'),
    ),
  ),
  ackRequired: v.optional(v.pipe(v.boolean('ackRequired must be true or false'), v.description("Whether the command waits for the device's own answer"))),
});

/** the body of POST /devices/{id}/commands, as documented (/openapi.json) */
export const CreateCommandSchema = v.object({ ...CommandBodySchema.entries, ...OutboxFieldsSchema.entries });
export type CreateCommandInput = v.InferOutput<typeof CreateCommandSchema>;

/** the device's answer: over MQTT with `id`, over HTTP the path names the command */
export const CommandAckSchema = v.object({
  id: v.optional(v.pipe(v.string('id must be a string'), v.minLength(1, 'id may not be empty'), v.maxLength(128, 'id is at most 128 characters'))),
  status: v.optional(v.picklist(['ok', 'error'], 'status must be "ok" or "error"')),
  result: v.optional(plainObject('result')),
});
export type CommandAckInput = v.InferOutput<typeof CommandAckSchema>;

export const CommandListQuerySchema = v.object({
  state: v.optional(v.picklist(COMMAND_STATES, `state must be one of ${COMMAND_STATES.join(', ')}`)),
});

const text = (d: string) => v.pipe(v.string(), v.description(d));
export const CommandSchema = v.object({
  id: text('Id of the command: the `id` field of what the device receives, and of its answer'),
  deviceId: v.number(),
  action: v.string(),
  parameters: v.record(v.string(), v.unknown()),
  ackRequired: v.pipe(v.boolean(), v.description("Whether the command waits for the device's own answer")),
  state: v.pipe(
    v.picklist(COMMAND_STATES),
    v.description('queued, sent (written to a live connection), delivered (the transport confirmed it), acked, failed, expired or cancelled'),
  ),
  creationTime: v.string(),
  expirationTime: text('When the command expires if it is not finished by then'),
  sentTime: v.optional(text('When it was last written to a connection of the device')),
  deliveredTime: v.optional(text('When the transport confirmed it (MQTT PUBACK, or the frame flushed)')),
  ackTime: v.optional(text('When the device answered')),
  result: v.optional(v.record(v.string(), v.unknown())),
  key: v.optional(text('The idempotency key it was created with')),
});
export type Command = v.InferOutput<typeof CommandSchema>;
