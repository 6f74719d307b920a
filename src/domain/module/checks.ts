// What a module's settings are checked against when saved, beyond their shape: the target
// address policy (API.md §9 "Targets", needs DNS) and the SPEC §6.4 template language. Both live
// with the worker that applies them at delivery; the edge hands them in, so the domain does no I/O
// of its own here. Each throws AppError INVALID_PARAMETERS naming the field (and, for a template,
// the position of the error).
export interface WebhookChecks {
  checkUrl(url: string, path: string): Promise<void>;
  checkTemplates(t: { headers?: Record<string, string> | null; body?: string | null }, path: string): void;
}
