// Smart modules of a project (docs/webhooks.md): the webhooks module, and the tsdb module of home
// time series (docs/timeseries.md).
import type { ProjectKeyedRepo } from './project-keyed.js';

/** A webhooks module (docs/webhooks.md). Webhook keys are sealed with the server secret: they sign. */
export interface EventWebhookRow {
  url: string;
  /** event types, `*` for all (docs/webhooks.md#subscriptions) */
  subscriptions: string[];
  /** advanced mode (docs/webhooks.md#templates) */
  headers: Record<string, string> | null;
  body: string | null;
  keySealed: string;
}
export interface CommandWebhookRow {
  url: string;
  keySealed: string;
}
/** a webhook switched off by the service (a 410 answer), until a client turns it on again */
export interface WebhookDisabled {
  time: string;
  reason: string;
}
/** docs/timeseries.md#the-module: the event types whose `timeSeriesData` the module stores */
export interface TsdbSettings {
  eventTypes: string[];
}
export type ModuleType = 'webhooks' | 'tsdb';
export interface ModuleRow {
  projectId: number;
  id: string;
  moduleType: ModuleType;
  description: string | null;
  /** a tsdb module's settings; absent or null for a webhooks module */
  tsdb?: TsdbSettings | null;
  eventWebhook: EventWebhookRow | null;
  commandWebhook: CommandWebhookRow | null;
  eventDisabled: WebhookDisabled | null;
  commandDisabled: WebhookDisabled | null;
  creationTime: string;
  modificationTime: string;
}
export type ModulePatch = Partial<Pick<ModuleRow, 'description' | 'eventWebhook' | 'commandWebhook' | 'eventDisabled' | 'commandDisabled'>> & {
  modificationTime: string;
};

export interface ModuleRepo extends ProjectKeyedRepo<ModuleRow> {
  /** false when the project already has a module with that id */
  create(m: ModuleRow): Promise<boolean>;
  /** the modules named, of any projects: one query for a batch of deliveries */
  getMany(keys: { projectId: number; id: string }[]): Promise<ModuleRow[]>;
  update(projectId: number, id: string, patch: ModulePatch): Promise<boolean>;
}
