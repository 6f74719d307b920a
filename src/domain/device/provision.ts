// addDeviceHome form 1 (docs/api.md#device-operations rule 2, docs/concepts.md#devices): on-demand provisioning. No credential is
// needed: the single-use provisioning token names the project, home, class (which `deviceClass`
// may override) and tag. The answer carries the new device's API key and claim code (docs/concepts.md#devices:
// "also present during on-demand provisioning"). Consuming the token and creating the device are
// one transaction, so a request that fails (an unknown class) does not burn the token. The device
// is named `<class>-<id>` (docs/concepts.md#devices; a body `name` is not used with a token, docs/api.md#device-operations rule 5).
import type { Deps, StoreOf, SystemArgs } from '../deps.js';
import { hashToken } from '../auth/tokens.js';
import { AppError } from '../errors.js';
import { writeLog } from '../log/write.js';
import { newClaimCode, newDeviceKey } from './credentials.js';
import type { Device } from './schemas.js';
import { deviceView } from './view.js';

/** the route answers this one with 403 (docs/api.md#errors: INVALID_TOKEN (provisioning)) */
export const invalidProvisioningToken = () => new AppError('INVALID_TOKEN', { credential: 'provisioning token' });

export async function provisionDevice({
  deps,
  input,
}: SystemArgs<Pick<Deps, 'clock' | 'sealer' | 'random'> & StoreOf<'logs' | 'transaction'>, { token: string; deviceClass?: string }>): Promise<Device> {
  const now = deps.clock.now().toISOString();
  const row = await deps.store.transaction(async (store) => {
    const t = await store.provisioningTokens.consume(hashToken(input.token), now);
    if (!t) throw invalidProvisioningToken();
    const home = await store.homes.get(t.homeId);
    if (!home || home.projectId !== t.projectId) throw invalidProvisioningToken();
    const deviceClass = input.deviceClass ?? t.deviceClass;
    if (!(await store.deviceClasses.get(t.projectId, deviceClass))) throw new AppError('UNKNOWN_DEVICE_CLASS', { deviceClass });
    const key = newDeviceKey(deps);
    const code = newClaimCode(deps);
    const created = await store.devices.create({
      projectId: t.projectId,
      deviceClass,
      homeId: home.id,
      name: null,
      description: null,
      tag: t.deviceTag,
      apiKeyHash: key.apiKeyHash,
      apiKeySealed: key.apiKeySealed,
      claimCodeHash: code.claimCodeHash,
      claimCodeSealed: code.claimCodeSealed,
      claimExpirationTime: null,
      claimTime: now,
      creationTime: now,
      bundleInstalled: null,
      bundleInstallTime: null,
      channel: null,
    });
    const name = `${deviceClass}-${created.id}`;
    await store.devices.update(created.id, { name });
    return { ...created, name };
  });
  await writeLog({
    deps,
    input: { projectId: row.projectId, level: 'info', source: 'api', text: `device ${row.id} provisioned on demand into home ${row.homeId}` },
  });
  return deviceView(deps.sealer, row, true);
}
