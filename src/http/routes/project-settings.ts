// Mounted at /projects (see index.ts). A project and its settings (docs/concepts.md), e.g.
// `allowUserSignup` for self-signup through POST /users.
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { STATUSES, projectIdIn } from '../params.js';
import { FleetStatsSchema, PatchProjectBodySchema, ProjectSchema, getFleetStats, getProject, updateProject } from '../../domain/project/index.js';

export const projectSettingsRoutes = resource({ tag: 'projects', statuses: STATUSES.read }, (r, op) => {
  r.get(
    '/:projectId',
    op({ operationId: 'getProject', summary: 'The project and its settings', success: 200, response: ProjectSchema, auth: 'a project key of the project' }),
    async (c) => c.json(await getProject({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c) } })),
  );

  r.get(
    '/:projectId/stats',
    op({
      operationId: 'getFleetStats',
      summary: 'Fleet figures: devices and connected ones, events per minute, delivery outcomes of the last hour (docs/api.md#fleet-figures)',
      success: 200,
      response: FleetStatsSchema,
      auth: 'a project key of the project',
    }),
    async (c) => c.json(await getFleetStats({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c) } })),
  );

  r.patch(
    '/:projectId',
    op({
      operationId: 'updateProject',
      summary: "Change the project's name or settings (`allowUserSignup`: POST /users without a credential is allowed)",
      success: 200,
      body: PatchProjectBodySchema,
      response: ProjectSchema,
      auth: 'project key with scope admin',
    }),
    async (c) => c.json(await updateProject({ deps: c.get('deps'), caller: c.get('caller'), input: { projectId: projectIdIn(c), body: await readBody(c) } })),
  );
});
