// An abandoned upload expires (issue: log requests): an upload that receives no part for
// `uploadTtlSeconds` fails, its parts are removed and the device's KV key with it, so the device
// is free for a new request. Run by the retention job and on first sight of the token.
import type { LogRequestRow } from '../../ports/store.js';
import type { Deps, EmitDeps, StoreOf, SystemArgs } from '../deps.js';
import { writeLog } from '../log/write.js';
import { endRequest } from './end.js';
import { partsFolder } from './limits.js';

type ExpireDeps = EmitDeps & Pick<Deps, 'logUploads' | 'blobs'>;

export async function abandonUpload(deps: ExpireDeps & StoreOf<'devices' | 'logs' | 'transaction'>, r: LogRequestRow): Promise<boolean> {
  const now = deps.clock.now().toISOString();
  const ttl = deps.logUploads.uploadTtlSeconds;
  const error = `upload abandoned: no part received for ${ttl} s`;
  const done = await endRequest(deps, r, ['uploading'], { status: 'failure', finishTime: now, uploadExpires: null, error }, r.uploadId ?? undefined);
  if (!done) return false;
  await deps.blobs.deleteTree(partsFolder(r.id));
  await writeLog({ deps, input: { projectId: r.projectId, level: 'warn', source: 'api', text: `log request ${r.id} of device ${r.deviceId}: ${error}` } });
  return true;
}

/** abandons every expired upload, `batch` at a time; returns how many */
export async function expireAbandonedUploads({
  deps,
  input: { batch = 100 } = {},
}: SystemArgs<ExpireDeps & StoreOf<'devices' | 'logRequests' | 'logs' | 'transaction'>, { batch?: number } | undefined>): Promise<number> {
  let n = 0;
  for (;;) {
    const rows = await deps.store.logRequests.expired(deps.clock.now().toISOString(), batch);
    let ended = 0;
    for (const r of rows) if (await abandonUpload(deps, r)) ended++;
    n += ended;
    // a full batch of which none ended (lost races) would come back as is: stop there
    if (rows.length < batch || ended === 0) return n;
  }
}
