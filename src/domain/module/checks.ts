// What a module's settings are checked against when saved, beyond their shape: the target
// address policy (API.md §9 "Targets", needs DNS) and the SPEC §6.4 template language. Both live
// in domain/webhook (the worker applies them again at delivery); the routes hand them in
// (domain/webhook/checks.ts webhookChecksOf), so a verb does no I/O of its own here. Each throws AppError INVALID_PARAMETERS naming the field (and, for a template,
// the position of the error).
export interface WebhookChecks {
  checkUrl(url: string, path: string): Promise<void>;
  checkTemplates(t: { headers?: Record<string, string> | null; body?: string | null }, path: string): void;
}
