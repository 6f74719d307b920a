// On-demand provisioning tokens (docs/api.md#credentials, docs/concepts.md): a member of the home (or a project key with
// `devices`) asks for one; the device presents it once in POST /devices to join the home. Single
// use, short-lived (deps.provisioningTtlSeconds), kept as a hash only.
import type { Body, Deps, HomeRef, StoreOf, VerbArgs } from '../deps.js';
import { homeFor } from '../auth/access.js';
import { hashToken } from '../auth/tokens.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { ProvisioningBodySchema, type ProvisioningToken } from './schemas.js';

export async function createProvisioningToken({
  deps,
  caller,
  input: { homeId, body },
}: VerbArgs<
  Pick<Deps, 'clock' | 'random' | 'provisioningTtlSeconds'> & StoreOf<'deviceClasses' | 'homes' | 'members' | 'provisioningTokens'>,
  HomeRef & Body
>): Promise<ProvisioningToken> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'member'], 'devices');
  const b = parseInput(ProvisioningBodySchema, body);
  if (!(await deps.store.deviceClasses.get(h.projectId, b.deviceClass))) throw new AppError('UNKNOWN_DEVICE_CLASS', { deviceClass: b.deviceClass });
  const token = deps.random.token('pt.');
  const expirationTime = new Date(deps.clock.now().getTime() + deps.provisioningTtlSeconds * 1000).toISOString();
  await deps.store.provisioningTokens.create({
    tokenHash: hashToken(token),
    projectId: h.projectId,
    homeId: h.id,
    deviceClass: b.deviceClass,
    deviceTag: b.deviceTag ?? null,
    expirationTime,
    usedTime: null,
  });
  return { token, expirationTime };
}
