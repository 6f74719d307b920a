// addDeviceHome form 2 (docs/api.md#device-operations rule 3, docs/concepts.md#devices): a member of the home (or a project key with
// `devices`) claims a pre-provisioned device by its claim code while its claimable window is
// open. The device joins the home, `claimTime` is set and the window closes.
import type { Deps, StoreOf, VerbArgs } from '../deps.js';
import { homeFor } from '../auth/access.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { claimCodeHash } from './credentials.js';
import type { Device } from './schemas.js';
import { deviceView, revealsSecrets } from './view.js';

export async function claimDevice({
  deps,
  caller,
  input,
}: VerbArgs<Pick<Deps, 'clock' | 'sealer'> & StoreOf<'homes' | 'logs' | 'members' | 'transaction'>, { claimCode: string; homeId: number }>): Promise<Device> {
  const home = await homeFor(deps, caller, input.homeId, ['project key', 'member'], 'devices');
  const hash = claimCodeHash(input.claimCode);
  const now = deps.clock.now().toISOString();
  const claimed = await deps.store.transaction(async (store) => {
    // read inside the transaction: of two claims of one device, the second sees it in a home
    const d = await store.devices.getByClaimHash(hash);
    // a code of another project is an unknown code (docs/api.md#credentials: reveal nothing)
    if (!d || d.projectId !== home.projectId) throw new AppError('DEVICE_NOT_CLAIMABLE');
    if (d.homeId !== null) throw new AppError('DEVICE_ALREADY_IN_HOME', { deviceId: d.id });
    if (!d.claimExpirationTime || d.claimExpirationTime <= now) throw new AppError('DEVICE_NOT_CLAIMABLE', { deviceId: d.id });
    // the conditional update decides between concurrent claims (PostgreSQL runs them at once)
    if (!(await store.devices.claim(d.id, home.id, now))) throw new AppError('DEVICE_ALREADY_IN_HOME', { deviceId: d.id });
    return { ...d, homeId: home.id, claimTime: now, claimExpirationTime: now };
  });
  await writeLog({
    deps,
    input: { projectId: home.projectId, caller, level: 'info', source: 'api', text: `device ${claimed.id} claimed into home ${home.id}` },
  });
  return deviceView(deps.sealer, claimed, revealsSecrets(caller));
}
