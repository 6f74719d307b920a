// Device commands (docs/concepts.md#commands, docs/concepts.md#devices "Commands").
import * as v from 'valibot';
import type { CommandActions } from '../../ports/store.js';
import type { StoreOf } from '../deps.js';
import { AppError } from '../errors.js';
import { jsonObject } from '../validate.js';

// docs/concepts.md#commands: `^[0-9a-z][0-9a-z_\-]+[0-9a-z]$` (so at least three characters)
export const ACTION_PATTERN = /^[0-9a-z][0-9a-z_\-]+[0-9a-z]$/;
// docs/concepts.md#commands: a project whose `commandActions` is `mode` also takes capitals (`doEcho`)
export const MODE_ACTION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_\-]+[0-9A-Za-z]$/;

const ALLOWED: Record<CommandActions, string> = {
  spec: 'lowercase letters, digits, "-" and "_", at least 3 characters, starting and ending with a letter or digit',
  mode: 'letters (either case), digits, "-" and "_", at least 3 characters, starting and ending with a letter or digit',
};

/**
 * The one action check of every command path (direct, outbox, module command webhooks):
 * INVALID_PARAMETERS naming the refused value and saying in words what the project's
 * `commandActions` setting allows (docs/concepts.md#commands).
 */
export function checkAction(action: string, setting: CommandActions): void {
  if ((setting === 'mode' ? MODE_ACTION_PATTERN : ACTION_PATTERN).test(action)) return;
  const hint = setting === 'spec' && MODE_ACTION_PATTERN.test(action) ? ' (camelCase actions need the project setting commandActions "mode")' : '';
  throw new AppError('INVALID_PARAMETERS', {
    issues: [{ path: 'action', message: `action ${JSON.stringify(action)} is not allowed: an action is ${ALLOWED[setting]}${hint}` }],
  });
}

/**
 * checkAction with the project's setting, read only when the action is not a lowercase one
 * (those pass in every project, so the common case costs no lookup).
 */
export async function checkProjectAction(deps: StoreOf<'projects'>, projectId: number, action: string): Promise<void> {
  if (ACTION_PATTERN.test(action)) return;
  checkAction(action, (await deps.store.projects.get(projectId))?.commandActions ?? 'spec');
}

/**
 * the action as a string matching the widest pattern (MODE's); a project's own setting narrows it
 * (checkAction), so the schema, the OpenAPI and AsyncAPI documents name the pattern no project exceeds
 */
export const ActionSchema = v.pipe(
  v.string('action must be a string'),
  v.regex(
    MODE_ACTION_PATTERN,
    (i) => `action ${JSON.stringify(i.input)} is not allowed: an action is ${ALLOWED.mode} (capitals only where the project's commandActions is "mode")`,
  ),
  v.description(
    'Command name: lowercase letters, digits, `-` and `_`, at least 3 characters, starting and ending with a letter or digit; in a project whose `commandActions` is `mode`, capitals too (`doEcho`)',
  ),
);

/** `${what} must be a JSON object` (outbox-schemas.ts too) */
export const plainObject = (what: string) => jsonObject(`${what} must be a JSON object`);

/** body of sendCommandDevice; unknown fields are ignored */
export const CommandBodySchema = v.object({
  action: ActionSchema,
  parameters: v.optional(plainObject('parameters')),
});
export type CommandBody = v.InferOutput<typeof CommandBodySchema>;
