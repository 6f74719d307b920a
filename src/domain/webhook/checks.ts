// The checks a module's webhook settings pass when saved (domain/module/checks.ts): the target
// policy of docs/webhooks.md and the docs/webhooks.md#templates template language, both from this directory, turned into
// INVALID_PARAMETERS issues that name the field and, for a template, the position of the error.
// The routes of modules, data sources and reports take them from webhookChecksOf(deps).
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import type { Resolver } from '../../ports/resolver.js';
import type { WebhookChecks } from '../module/checks.js';
import { checkTargetUrl, TargetNotAllowedError } from './target-policy.js';
import { TemplateError, validateTemplates } from './template.js';

// `header "X-Foo"` / `header name "X-Foo"` / `body` → the field path a client sent
export function fieldOf(where: string | undefined, path: string): string {
  const m = where ? /^header(?: name)? "(.*)"$/.exec(where) : null;
  if (m) return `${path}.headers.${m[1]}`;
  return `${path}.${where === undefined ? 'body' : where}`;
}

/** the docs/webhooks.md#templates language over header names and values and the body; INVALID_PARAMETERS naming the field */
export function checkTemplates(t: { headers?: Record<string, string> | null; body?: string | null }, path: string): void {
  try {
    validateTemplates({ headers: t.headers ?? undefined, body: t.body ?? undefined });
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    throw new AppError('INVALID_PARAMETERS', {
      issues: [{ path: fieldOf(err.where, path), message: err.message, reason: err.reason, position: err.position }],
    });
  }
}

export function webhookChecks(opts: { allowPrivateTargets: boolean; resolver: Resolver }): WebhookChecks {
  return {
    async checkUrl(url, path) {
      try {
        await checkTargetUrl(url, opts.allowPrivateTargets, opts.resolver);
      } catch (err) {
        if (!(err instanceof TargetNotAllowedError)) throw err;
        throw new AppError('INVALID_PARAMETERS', { issues: [{ path, message: err.message, code: err.code }] });
      }
    },
    checkTemplates,
  };
}

/** the checks under the deployment's target policy (Deps.webhooks) */
export function webhookChecksOf(deps: Pick<Deps, 'webhooks' | 'resolver'>): WebhookChecks {
  return webhookChecks({ allowPrivateTargets: deps.webhooks.allowPrivateTargets, resolver: deps.resolver });
}
