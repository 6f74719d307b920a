// Mounted at /projects (see index.ts). Smart modules of a project, their webhook keys, and the
// delivery log (docs/webhooks.md). Every operation: a project key of the project with scope `modules`.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { requireCaller } from '../../domain/auth/access.js';
import {
  ModuleCreateSchema,
  ModulePatchSchema,
  ModuleSchema,
  RotateKeysSchema,
  createModule,
  deleteModule,
  getModule,
  listModules,
  parseProjectId,
  rotateModuleKeys,
  updateModule,
} from '../../domain/module/index.js';
import { DeliveryQuerySchema, getDelivery, listDeliveries, redeliver } from '../../domain/webhook/log.js';
import { webhookChecksOf } from '../../domain/webhook/checks.js';
import { previewTemplates, TemplatePreviewResultSchema, TemplatePreviewSchema } from '../../domain/webhook/preview.js';

const tag = 'smart modules';
const auth = 'project key with scope modules';
const READ = [401, 403, 404, 429, 500, 503] as const;

/** the caller first (401 before anything about the path), then the project in the path */
function scope(c: Context<HttpEnv>) {
  const caller = c.get('caller');
  requireCaller(caller);
  return { deps: c.get('deps'), caller, projectId: parseProjectId(c.req.param('projectId') ?? '') };
}

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

export function modulesRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();
  const base = '/:projectId/smartModules';

  r.get(
    base,
    op({
      operationId: 'getSmartModules',
      summary: "A project's smart modules (keys masked)",
      tag,
      success: 200,
      statuses: READ,
      response: v.array(ModuleSchema),
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listModules({ deps, caller, input: { projectId, page } }));
    },
  );

  r.post(
    base,
    op({
      operationId: 'createSmartModule',
      summary: 'Create a webhooks module; its keys are shown in this answer only',
      tag,
      success: 201,
      statuses: READ,
      body: ModuleCreateSchema,
      response: ModuleSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await createModule({ deps: { ...deps, checks: webhookChecksOf(deps) }, caller, input: { projectId, body: await readBody(c) } }), 201);
    },
  );

  r.post(
    `${base}/templatePreview`,
    op({
      operationId: 'previewSmartModuleTemplates',
      summary: 'What an event webhook with these header and body templates would send for a sample event (nothing is sent)',
      tag,
      success: 200,
      statuses: READ,
      body: TemplatePreviewSchema,
      response: TemplatePreviewResultSchema,
      auth,
    }),
    async (c) => {
      const { caller, projectId } = scope(c);
      return c.json(previewTemplates({ caller, input: { projectId, body: await readBody(c) } }));
    },
  );

  r.get(
    `${base}/:moduleId`,
    op({ operationId: 'getSmartModule', summary: 'One smart module (keys masked)', tag, success: 200, statuses: READ, response: ModuleSchema, auth }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await getModule({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId') } }));
    },
  );

  r.patch(
    `${base}/:moduleId`,
    op({
      operationId: 'updateSmartModule',
      summary: 'Change a module; null removes a webhook, enabled: true turns one on again',
      tag,
      success: 200,
      statuses: READ,
      body: ModulePatchSchema,
      response: ModuleSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(
        await updateModule({
          deps: { ...deps, checks: webhookChecksOf(deps) },
          caller,
          input: { projectId, moduleId: c.req.param('moduleId'), body: await readBody(c) },
        }),
      );
    },
  );

  r.delete(
    `${base}/:moduleId`,
    op({ operationId: 'deleteSmartModule', summary: 'Delete a module, its queued deliveries and its delivery log', tag, success: 204, statuses: READ, auth }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      await deleteModule({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId') } });
      return c.body(null, 204);
    },
  );

  r.post(
    `${base}/:moduleId/keys`,
    op({
      operationId: 'rotateSmartModuleKeys',
      summary: 'New webhook keys (both unless `webhook` says event or command), shown in this answer only',
      tag,
      success: 200,
      statuses: READ,
      body: RotateKeysSchema,
      response: ModuleSchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await rotateModuleKeys({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), body: await readBody(c) } }));
    },
  );

  r.get(
    `${base}/:moduleId/deliveries`,
    op({
      operationId: 'getSmartModuleDeliveries',
      summary: "A module's webhook deliveries, newest first",
      tag,
      success: 200,
      statuses: READ,
      query: DeliveryQuerySchema,
      response: v.array(DeliverySummarySchema),
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      const page = pageOf(c, deps.limits);
      const { status, since } = c.req.query();
      const query = { ...(status !== undefined ? { status } : {}), ...(since !== undefined ? { since } : {}) };
      return listResponse(c, page, await listDeliveries({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), query, page } }));
    },
  );

  r.get(
    `${base}/:moduleId/deliveries/:deliveryId`,
    op({
      operationId: 'getSmartModuleDelivery',
      summary: 'One delivery: payload and every attempt',
      tag,
      success: 200,
      statuses: READ,
      response: DeliverySchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await getDelivery({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), deliveryId: c.req.param('deliveryId') } }));
    },
  );

  r.post(
    `${base}/:moduleId/deliveries/:deliveryId/redeliver`,
    op({
      operationId: 'redeliverSmartModuleDelivery',
      summary: 'Queue a delivery again now, with a fresh round of retries (same delivery id)',
      tag,
      success: 202,
      statuses: READ,
      response: DeliverySummarySchema,
      auth,
    }),
    async (c) => {
      const { deps, caller, projectId } = scope(c);
      return c.json(await redeliver({ deps, caller, input: { projectId, moduleId: c.req.param('moduleId'), deliveryId: c.req.param('deliveryId') } }), 202);
    },
  );

  return r;
}
