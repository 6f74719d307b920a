// The request one delivery sends (docs/webhooks.md#verifying-signatures, docs/webhooks.md): the target's current URL and key
// (a rotated key signs retries too), the templates for event webhooks, then the service's own
// headers LAST, after removing any case-variant a template may have produced, so no template can
// forge or duplicate a signature.
import { laneOf, type DeliveryRow } from '../../../ports/queue.js';
import type { Sealer } from '../../../domain/crypto/sealer.js';
import { buildWebhookRequest, TemplateError } from '../../../domain/webhook/template.js';
import { sign } from './signature.js';
import type { WebhookRequest } from '../client/http-client.js';

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const MODE_SIGNATURE_HEADER = 'X-Mode-Signature';
export const DELIVERY_HEADER = 'X-Service-Delivery';
const OWN = new Set([SIGNATURE_HEADER, MODE_SIGNATURE_HEADER, DELIVERY_HEADER].map((h) => h.toLowerCase()));
const USER_AGENT = 'Hearth-Webhooks/0.1';

export type Prepared =
  | { send: WebhookRequest }
  /** nothing may be sent: the delivery is recorded as dropped with this reason */
  | { drop: string; templateError?: boolean };

/** where a delivery goes, read when it is sent (delivery/resolve-target.ts) */
export interface Target {
  url: string;
  keySealed: string;
  /** docs/webhooks.md#templates templates (event webhooks only) */
  templates?: { headers: Record<string, string> | null; body: string | null };
  /** told of every attempt (data sources keep a health state from it) */
  afterAttempt?: (ok: boolean, error?: string) => Promise<void>;
}

/** One delivery as the sender needs it: what to send where, and the key to sign it with. */
export interface Job {
  /** the delivery id (X-Service-Delivery) */
  id: string;
  /** the webhook it goes to (ports/queue.ts laneOf): the unit of fairness */
  lane: string;
  url: string;
  /** the webhook key, unsealed */
  key: string;
  /** the stored docs/webhooks.md#event-webhook / docs/webhooks.md#command-webhook JSON */
  payload: string;
  templates?: Target['templates'];
}

/** the key comes from the sealer's cache (domain/crypto/sealer.ts): AES-GCM per delivery is measurable at thousands a second */
export function jobOf(row: DeliveryRow, lane: string, target: Target, sealer: Sealer): Job {
  const job: Job = { id: row.id, lane, url: target.url, key: sealer.unseal(target.keySealed), payload: row.payload };
  if (target.templates) job.templates = target.templates;
  return job;
}

/** the request of a job: templates applied, then the service's own headers, signed */
export function buildRequest(job: Job): Prepared {
  let headers: Record<string, string>;
  let body: string;
  if (job.templates) {
    try {
      const t = job.templates;
      const built = buildWebhookRequest({ headers: t.headers ?? undefined, body: t.body ?? undefined }, JSON.parse(job.payload));
      headers = built.headers;
      // without a body template the stored text is sent byte for byte
      body = t.body ? built.body : job.payload;
    } catch (err) {
      if (err instanceof TemplateError) return { drop: `TEMPLATE_ERROR: ${err.message}`, templateError: true };
      throw err;
    }
  } else {
    // docs/webhooks.md#event-webhook / docs/webhooks.md#command-webhook JSON as stored, no template to apply: only our own headers
    const signature = sign(job.key, job.url, job.payload);
    const send = {
      'Content-Type': 'application/json',
      'User-Agent': USER_AGENT,
      [SIGNATURE_HEADER]: signature,
      [MODE_SIGNATURE_HEADER]: signature,
      [DELIVERY_HEADER]: job.id,
    };
    return { send: { url: job.url, method: 'POST', headers: send, body: job.payload } };
  }

  for (const name of Object.keys(headers)) if (OWN.has(name.toLowerCase())) delete headers[name];
  if (!Object.keys(headers).some((n) => n.toLowerCase() === 'user-agent')) headers['User-Agent'] = USER_AGENT;
  const signature = sign(job.key, job.url, body);
  headers[SIGNATURE_HEADER] = signature;
  headers[MODE_SIGNATURE_HEADER] = signature;
  headers[DELIVERY_HEADER] = job.id;
  return { send: { url: job.url, method: 'POST', headers, body } };
}

/** the request one claimed row sends to its target */
export function prepareRequest(row: DeliveryRow, target: Target, sealer: Sealer): Prepared {
  return buildRequest(jobOf(row, laneOf(row), target, sealer));
}
