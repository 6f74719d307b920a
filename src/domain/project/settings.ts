// A project and its settings (docs/concepts.md): any key of the project reads them; a key with scope
// admin changes them (`allowUserSignup`: whether POST /users without a credential is allowed;
// `verifyEmails`, docs/concepts.md#accounts, only where the server sends mail; `commandActions`,
// docs/concepts.md#commands).
import type { Body, Deps, ProjectRef, StoreOf, VerbArgs } from '../deps.js';
import { requireProjectKey } from '../auth/access.js';
import type { ProjectRow } from '../../ports/store.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { ownProject } from './access.js';
import { PatchProjectBodySchema, type Project } from './schemas.js';

const projectView = (p: ProjectRow): Project => ({
  id: p.id,
  name: p.name,
  allowUserSignup: p.allowUserSignup,
  verifyEmails: p.verifyEmails,
  commandActions: p.commandActions,
  creationTime: p.creationTime,
});

export async function getProject({ deps, caller, input: { projectId } }: VerbArgs<StoreOf<'projects'>, ProjectRef>): Promise<Project> {
  const p = await ownProject(deps, caller, projectId);
  if (caller.type !== 'project key') throw new AppError('PERMISSION_DENIED', { required: 'a project key' });
  return projectView(p);
}

export async function updateProject({
  deps,
  caller,
  input: { projectId, body },
}: VerbArgs<Pick<Deps, 'clock' | 'mailer'> & StoreOf<'logs' | 'projects'>, ProjectRef & Body>): Promise<Project> {
  const p = await ownProject(deps, caller, projectId);
  requireProjectKey(caller, projectId, 'admin');
  const b = parseInput(PatchProjectBodySchema, body);
  // docs/concepts.md#accounts: a verification mail that can never be sent would lock every signup out
  if (b.verifyEmails && !deps.mailer) {
    throw new AppError('INVALID_PARAMETERS', {
      issues: [{ path: 'verifyEmails', message: 'verifyEmails needs a mail server: set HEARTH_SMTP_URL and HEARTH_MAIL_FROM on the server first' }],
    });
  }
  await deps.store.projects.update(p.id, b);
  const changed = Object.entries(b)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  if (changed.length)
    await writeLog({ deps, input: { projectId: p.id, caller, level: 'info', source: 'api', text: `project settings changed: ${changed.join(', ')}` } });
  return projectView({ ...p, ...Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)) });
}
