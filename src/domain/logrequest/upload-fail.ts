// PATCH /deviceLogger/{token} `{status: "failure"}` (docs/concepts.md#log-requests): the device could not collect or
// send its logs. The request ends as `failure`, parts already sent are removed.
import type { Body, StoreOf, SystemArgs } from '../deps.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { writeLog } from '../log/write.js';
import { ReportFailureSchema } from './schemas.js';
import { endRequest } from './end.js';
import { requestForToken } from './token.js';
import { partsFolder, type LogDeps } from './limits.js';

export async function reportUploadFailure({
  deps,
  input: { token, body },
}: SystemArgs<LogDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'transaction'>, { token: string } & Body>): Promise<void> {
  const r = await requestForToken(deps, token);
  const parsed = parseInput(ReportFailureSchema, body);
  const now = deps.clock.now().toISOString();
  const error = parsed.reason ?? 'reported by the device';
  const done = await endRequest(deps, r, ['requested', 'uploading'], { status: 'failure', finishTime: now, uploadExpires: null, error });
  if (!done) throw new AppError('INVALID_TOKEN');
  await deps.blobs.deleteTree(partsFolder(r.id));
  await writeLog({
    deps,
    input: { projectId: r.projectId, level: 'warn', source: 'api', text: `log request ${r.id} of device ${r.deviceId} failed: ${error}` },
  });
}
