// What an event webhook with these templates would send for a sample event (docs/webhooks.md#templates), without
// sending anything: the console's template editor shows it as you write. The sample is shaped
// into the docs/webhooks.md#event-webhook body a receiver gets, then rendered exactly as a delivery renders it; an
// error names the template and its position. The templates are checked as saving a module checks them
// (module/settings.ts checkEventTemplates): what the preview accepts, a module may hold.
import * as v from 'valibot';
import type { Caller } from '../caller.js';
import type { Body, ProjectRef } from '../deps.js';
import { AppError } from '../errors.js';
import { parseWith } from '../validate.js';
import { requireModuleManager } from '../module/access.js';
import { BodyTemplate, HeaderTemplates } from '../module/schemas.js';
import { checkEventTemplates } from '../module/settings.js';
import { checkTemplates, fieldOf } from './checks.js';
import { eventWebhookBody } from './payload.js';
import { buildWebhookRequest, TemplateError } from './template.js';

export const TemplatePreviewSchema = v.object({
  headers: v.optional(v.nullable(HeaderTemplates)),
  body: v.optional(v.nullable(BodyTemplate)),
  event: v.optional(
    v.object({
      eventType: v.optional(v.string('eventType must be a string'), 'sample'),
      eventData: v.optional(v.record(v.string(), v.unknown(), 'eventData must be an object'), {}),
      timestamp: v.optional(v.string('timestamp must be a string')),
      homeId: v.optional(v.number('homeId must be a number'), 1),
      originDeviceId: v.optional(v.number('originDeviceId must be a number')),
      originDeviceClass: v.optional(v.string('originDeviceClass must be a string')),
      originDeviceIp: v.optional(v.string('originDeviceIp must be a string')),
      originProjectKeyId: v.optional(v.string()),
      originProjectKeyName: v.optional(v.string()),
    }),
    {},
  ),
});

export const TemplatePreviewResultSchema = v.object({
  headers: v.record(v.string(), v.string()),
  body: v.string(),
});
export type TemplatePreview = v.InferOutput<typeof TemplatePreviewResultSchema>;

export function previewTemplates({ caller, input }: { caller: Caller; input: ProjectRef & Body }): TemplatePreview {
  requireModuleManager(caller, input.projectId);
  const { headers, body, event } = parseWith(TemplatePreviewSchema, input.body);
  checkEventTemplates(checkTemplates, { headers, body });
  const payload = eventWebhookBody({ ...event, timestamp: event.timestamp ?? new Date(0).toISOString() } as Parameters<typeof eventWebhookBody>[0]);
  try {
    return buildWebhookRequest({ headers: headers ?? undefined, body: body ?? undefined }, payload);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    throw new AppError('INVALID_PARAMETERS', {
      issues: [{ path: fieldOf(err.where, 'eventWebhook'), message: err.message, reason: err.reason, position: err.position }],
    });
  }
}
