// Mounted at /homes (see index.ts). The smart modules a home's project has, and the command
// webhook trigger (docs/webhooks.md#command-webhook; docs/webhooks.md).
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { listResponse, pageOf } from '../paging.js';
import { STATUSES } from '../params.js';
import { requireCaller } from '../../domain/auth/access.js';
import { ModuleBriefSchema, ModuleSchema, listHomeModules } from '../../domain/module/index.js';
import { CommandTriggerSchema, triggerCommand } from '../../domain/command/webhook-trigger.js';
import { noContent } from '../no-content.js';

export const homeModulesRoutes = resource({ tag: 'smart modules', statuses: STATUSES.read }, (r, op) => {
  r.get(
    '/:homeId/smartModules',
    op({
      operationId: 'getHomeSmartModules',
      summary: "The smart modules of the home's project (a member sees ids and descriptions; a project key, the settings with keys masked)",
      success: 200,
      response: v.array(v.union([ModuleSchema, ModuleBriefSchema])),
      auth: 'project key with scope modules, or a member of the home',
    }),
    async (c) => {
      const deps = c.get('deps');
      const caller = c.get('caller');
      requireCaller(caller);
      const page = pageOf(c, deps.limits);
      return listResponse(c, page, await listHomeModules({ deps, caller, input: { homeIdRaw: c.req.param('homeId'), page } }));
    },
  );

  r.put(
    '/:homeId/smartModules/:moduleId/command',
    op({
      operationId: 'triggerSmartModuleCommand',
      summary: "Call the module's command webhook (docs/webhooks.md#command-webhook); 204 once the delivery is durably queued",
      success: 204,
      body: CommandTriggerSchema,
      auth: 'project key with scope commands, or a member of the home',
    }),
    async (c) => {
      const caller = c.get('caller');
      requireCaller(caller);
      await triggerCommand({
        deps: c.get('deps'),
        caller,
        input: { homeIdRaw: c.req.param('homeId'), moduleId: c.req.param('moduleId'), body: await readBody(c) },
      });
      return noContent(c);
    },
  );
});
