// Turning the webhook settings a client sent into stored rows: checks beyond the shape (target
// policy, templates, reserved headers) and fresh sealed keys.
import { randomBytes } from 'node:crypto';
import type { CommandWebhookRow, EventWebhookRow } from '../../ports/store.js';
import type { Sealer } from '../crypto/sealer.js';
import { AppError } from '../errors.js';
import type { WebhookChecks } from './checks.js';

// Set by the service on every request, after the templates (docs/webhooks.md); a template may not claim them.
export const RESERVED_HEADERS: readonly string[] = ['x-service-signature', 'x-mode-signature', 'x-service-delivery'];

export const MAX_MODULES_PER_PROJECT = 100;

/** docs/timeseries.md#the-module: the event type a tsdb module stores when none is named */
export const DEFAULT_TSDB_EVENT_TYPES = ['timeSeriesData'] as const;

/** docs/timeseries.md#the-module: a tsdb module has no webhook */
export function refuseWebhooksOnTsdb(input: { eventWebhook?: unknown; commandWebhook?: unknown }): void {
  for (const path of ['eventWebhook', 'commandWebhook'] as const) {
    if (input[path]) throw new AppError('INVALID_PARAMETERS', { issues: [{ path, message: 'a module of type "tsdb" has no webhook' }] });
  }
}

/** the same shape as worker/webhook/signature.ts generateWebhookKey: `whk.` + 32 random bytes */
export function newWebhookKey(): string {
  return 'whk.' + randomBytes(32).toString('base64url');
}

export interface EventWebhookSettings {
  url: string;
  subscriptions?: string[];
  headers?: Record<string, string> | null;
  body?: string | null;
}

/**
 * The templates of an event webhook: no header the service sets, then the template language
 * (docs/webhooks.md#templates). Saving a module and the template preview both check with this, so the
 * preview accepts exactly what a module may hold.
 */
export function checkEventTemplates(
  checkTemplates: WebhookChecks['checkTemplates'],
  t: { headers?: Record<string, string> | null; body?: string | null },
  path = 'eventWebhook',
): void {
  for (const name of Object.keys(t.headers ?? {})) {
    if (RESERVED_HEADERS.includes(name.toLowerCase())) {
      throw new AppError('INVALID_PARAMETERS', { issues: [{ path: `${path}.headers.${name}`, message: `header ${name} is set by the service` }] });
    }
  }
  checkTemplates({ headers: t.headers ?? null, body: t.body ?? null }, path);
}

export async function checkEventWebhook(checks: WebhookChecks, ev: EventWebhookSettings, path = 'eventWebhook'): Promise<void> {
  checkEventTemplates(checks.checkTemplates, ev, path);
  await checks.checkUrl(ev.url, `${path}.url`);
}

/** the stored event webhook; `keySealed` kept from before unless a new key is due */
export function eventWebhookRow(ev: EventWebhookSettings, keySealed: string): EventWebhookRow {
  const headers = ev.headers && Object.keys(ev.headers).length > 0 ? ev.headers : null;
  // an empty body template is no template (template.ts treats it so too)
  const body = ev.body ? ev.body : null;
  return { url: ev.url, subscriptions: ev.subscriptions ?? ['*'], headers, body, keySealed };
}

export function commandWebhookRow(url: string, keySealed: string): CommandWebhookRow {
  return { url, keySealed };
}

export function sealedNewKey(sealer: Sealer): { key: string; sealed: string } {
  const key = newWebhookKey();
  return { key, sealed: sealer.seal(key) };
}
