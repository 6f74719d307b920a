// Device commands (docs/concepts.md#commands, docs/concepts.md#devices "Commands").
import * as v from 'valibot';

// docs/concepts.md#commands: `^[0-9a-z][0-9a-z_\-]+[0-9a-z]$` (so at least three characters)
export const ACTION_PATTERN = /^[0-9a-z][0-9a-z_\-]+[0-9a-z]$/;

const plainObject = (what: string) =>
  v.custom<Record<string, unknown>>((x) => typeof x === 'object' && x !== null && !Array.isArray(x), `${what} must be a JSON object`);

/** body of sendCommandDevice; unknown fields are ignored */
export const CommandBodySchema = v.object({
  action: v.pipe(
    v.string('action must be a string'),
    v.regex(ACTION_PATTERN, 'action must match ^[0-9a-z][0-9a-z_\\-]+[0-9a-z]$'),
    v.description('Command name: lowercase letters, digits, `-` and `_`, at least 3 characters, starting and ending with a letter or digit'),
  ),
  parameters: v.optional(plainObject('parameters')),
});
export type CommandBody = v.InferOutput<typeof CommandBodySchema>;
