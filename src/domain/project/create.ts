// Create a project (admin CLI only: over HTTP a credential belongs to one project, so nobody may
// create another). Like the first start (bootstrap.ts), it gets device class `default`; keys are
// made with createApiKey.
import type { Body, Deps, StoreOf, SystemArgs } from '../deps.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { CreateProjectBodySchema, type Project } from './schemas.js';

export async function createProject({ deps, input: { body } }: SystemArgs<Pick<Deps, 'clock'> & StoreOf<'logs' | 'transaction'>, Body>): Promise<Project> {
  const { name } = parseInput(CreateProjectBodySchema, body);
  const now = deps.clock.now().toISOString();
  const project = await deps.store.transaction(async (store) => {
    const p = await store.projects.create({ name, creationTime: now });
    await store.deviceClasses.create({ projectId: p.id, id: 'default', name: 'Default', description: null, creationTime: now });
    return p;
  });
  await writeLog({ deps, input: { projectId: project.id, level: 'info', source: 'admin', text: `project ${project.id} "${name}" created` } });
  return project;
}

export async function listProjects({ deps }: SystemArgs<StoreOf<'projects'>>): Promise<Project[]> {
  return deps.store.projects.list();
}
