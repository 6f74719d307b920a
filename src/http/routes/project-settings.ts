// Mounted at /projects (see index.ts). A project and its settings (docs/concepts.md), e.g.
// `allowUserSignup` for self-signup through POST /users.
import { Hono, type Context } from 'hono';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { STATUSES, actor, pathId } from '../params.js';
import { FleetStatsSchema, PatchProjectBodySchema, ProjectSchema, getFleetStats, getProject, updateProject } from '../../domain/project/index.js';

const tag = 'projects';
const pid = (c: Context) => pathId(c, 'projectId', 'PROJECT_NOT_FOUND');

export function projectSettingsRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/:projectId',
    op({
      operationId: 'getProject',
      summary: 'The project and its settings',
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: ProjectSchema,
      auth: 'a project key of the project',
    }),
    async (c) => c.json(await getProject({ ...actor(c), input: { projectId: pid(c) } })),
  );

  r.get(
    '/:projectId/stats',
    op({
      operationId: 'getFleetStats',
      summary: 'Fleet figures: devices and connected ones, events per minute, delivery outcomes of the last hour (docs/api.md#fleet-figures)',
      tag,
      success: 200,
      statuses: STATUSES.read,
      response: FleetStatsSchema,
      auth: 'a project key of the project',
    }),
    async (c) => c.json(await getFleetStats({ ...actor(c), input: { projectId: pid(c) } })),
  );

  r.patch(
    '/:projectId',
    op({
      operationId: 'updateProject',
      summary: "Change the project's name or settings (`allowUserSignup`: POST /users without a credential is allowed)",
      tag,
      success: 200,
      statuses: STATUSES.read,
      body: PatchProjectBodySchema,
      response: ProjectSchema,
      auth: 'project key with scope admin',
    }),
    async (c) => c.json(await updateProject({ ...actor(c), input: { projectId: pid(c), body: await readBody(c) } })),
  );

  return r;
}
