// Mounted at /projects (see index.ts). Smart modules of a project, their webhook keys, and the
// delivery log (docs/webhooks.md). Every operation: a project key of the project with scope `modules`.
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES, projectScope, withWebhookChecks } from '../params.js';
import {
  ModuleCreateSchema,
  ModulePatchSchema,
  ModuleSchema,
  RotateKeysSchema,
  createModule,
  deleteModule,
  getModule,
  listModules,
  rotateModuleKeys,
  updateModule,
} from '../../domain/module/index.js';
import { DeliveryQuerySchema, getDelivery, listDeliveries, redeliver } from '../../domain/webhook/log.js';
import { previewTemplates, TemplatePreviewResultSchema, TemplatePreviewSchema } from '../../domain/webhook/preview.js';
import { noContent } from '../no-content.js';

const AttemptSchema = v.object({
  time: v.string(),
  statusCode: v.optional(v.number()),
  error: v.optional(v.string()),
  latencyMs: v.number(),
  response: v.string(),
});
const DeliverySummarySchema = v.object({
  id: v.string(),
  moduleId: v.string(),
  kind: v.picklist(['event', 'command']),
  status: v.picklist(['pending', 'delivering', 'success', 'failed', 'dropped']),
  eventType: v.optional(v.string()),
  eventId: v.optional(v.string()),
  creationTime: v.string(),
  updateTime: v.string(),
  attemptCount: v.number(),
  nextAttemptTime: v.optional(v.string()),
  lastAttempt: v.optional(v.omit(AttemptSchema, ['response'])),
});
const DeliverySchema = v.object({ ...DeliverySummarySchema.entries, payload: v.unknown(), attempts: v.array(AttemptSchema) });

export const modulesRoutes = resource({ tag: 'smart modules', statuses: STATUSES.read, auth: 'project key with scope modules' }, (r, op) => {
  const base = '/:projectId/smartModules';

  r.get(
    base,
    op({ operationId: 'getSmartModules', summary: "A project's smart modules (keys masked)", success: 200, response: v.array(ModuleSchema) }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listModules({ deps, caller, input: { projectId, page } }));
    },
  );

  r.post(
    base,
    op({
      operationId: 'createSmartModule',
      summary: 'Create a webhooks module; its keys are shown in this answer only',
      success: 201,
      body: ModuleCreateSchema,
      response: ModuleSchema,
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(await createModule({ deps: withWebhookChecks(deps), caller, input: { projectId, body: await readBody(c) } }), 201);
    },
  );

  r.post(
    `${base}/templatePreview`,
    op({
      operationId: 'previewSmartModuleTemplates',
      summary: 'What an event webhook with these header and body templates would send for a sample event (nothing is sent)',
      success: 200,
      body: TemplatePreviewSchema,
      response: TemplatePreviewResultSchema,
    }),
    async (c) => {
      const { caller, projectId } = projectScope(c);
      return c.json(previewTemplates({ caller, input: { projectId, body: await readBody(c) } }));
    },
  );

  r.get(
    `${base}/:moduleId`,
    op({ operationId: 'getSmartModule', summary: 'One smart module (keys masked)', success: 200, response: ModuleSchema }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(await getModule({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId') } }));
    },
  );

  r.patch(
    `${base}/:moduleId`,
    op({
      operationId: 'updateSmartModule',
      summary: 'Change a module; null removes a webhook, enabled: true turns one on again',
      success: 200,
      body: ModulePatchSchema,
      response: ModuleSchema,
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(
        await updateModule({
          deps: withWebhookChecks(deps),
          caller,
          input: { projectId, moduleId: c.req.param('moduleId'), body: await readBody(c) },
        }),
      );
    },
  );

  r.delete(
    `${base}/:moduleId`,
    op({ operationId: 'deleteSmartModule', summary: 'Delete a module, its queued deliveries and its delivery log', success: 204 }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      await deleteModule({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId') } });
      return noContent(c);
    },
  );

  r.post(
    `${base}/:moduleId/keys`,
    op({
      operationId: 'rotateSmartModuleKeys',
      summary: 'New webhook keys (both unless `webhook` says event or command), shown in this answer only',
      success: 200,
      body: RotateKeysSchema,
      response: ModuleSchema,
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(await rotateModuleKeys({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), body: await readBody(c) } }));
    },
  );

  r.get(
    `${base}/:moduleId/deliveries`,
    op({
      operationId: 'getSmartModuleDeliveries',
      summary: "A module's webhook deliveries, newest first",
      success: 200,
      query: DeliveryQuerySchema,
      response: v.array(DeliverySummarySchema),
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      const page = pageOf(c, deps.limits);
      const { status, since } = c.req.query();
      const query = { ...(status !== undefined ? { status } : {}), ...(since !== undefined ? { since } : {}) };
      return listResponse(c, page, await listDeliveries({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), query, page } }));
    },
  );

  r.get(
    `${base}/:moduleId/deliveries/:deliveryId`,
    op({ operationId: 'getSmartModuleDelivery', summary: 'One delivery: payload and every attempt', success: 200, response: DeliverySchema }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(await getDelivery({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), deliveryId: c.req.param('deliveryId') } }));
    },
  );

  r.post(
    `${base}/:moduleId/deliveries/:deliveryId/redeliver`,
    op({
      operationId: 'redeliverSmartModuleDelivery',
      summary: 'Queue a delivery again now, with a fresh round of retries (same delivery id)',
      success: 202,
      response: DeliverySummarySchema,
    }),
    async (c) => {
      const { deps, caller, projectId } = projectScope(c);
      return c.json(await redeliver({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), deliveryId: c.req.param('deliveryId') } }), 202);
    },
  );
});
