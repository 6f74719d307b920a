// addDeviceHome (docs/api.md#device-operations, docs/concepts.md#devices): three forms tried in this order, docs/api.md#device-operations rule 4 ("token
// parameters take precedence over projectId"):
//   1. {token, deviceClass?}          on-demand provisioning, no credential needed
//   2. {claimCode, homeId}            claim a pre-provisioned device
//   3. {projectId, deviceClass, ...}  create a pre-provisioned device
// Anything else is 403 MISSING_PARAMETERS. Guessing tokens and claim codes backs off per client
// IP, and per credential for claims (auth/throttle.ts, docs/concepts.md).
import type { Body, Deps, StoreOf, VerbArgs } from '../deps.js';
import { requireCaller } from '../auth/access.js';
import { callerKey } from '../caller.js';
import { throttled, type Lane } from '../auth/throttle.js';
import { AppError } from '../errors.js';
import { parseInput } from '../validate.js';
import { AddDeviceBodySchema, type Device } from './schemas.js';
import { provisionDevice } from './provision.js';
import { claimDevice } from './claim.js';
import { createDevice } from './create.js';

export async function addDeviceHome({
  deps,
  caller,
  input: { body },
}: VerbArgs<
  Pick<Deps, 'clock' | 'sealer' | 'random' | 'authThrottle'> & StoreOf<'deviceClasses' | 'devices' | 'homes' | 'logs' | 'members' | 'transaction'>,
  Body
>): Promise<Device> {
  const b = parseInput(AddDeviceBodySchema, body);
  const ip: Lane = { key: `guess-ip:${caller.ip ?? 'unknown'}`, policy: 'client' };
  if (b.token !== undefined) {
    const token = b.token;
    return throttled(deps.authThrottle, [ip], ['INVALID_TOKEN'], () => provisionDevice({ deps, input: { token, deviceClass: b.deviceClass } }));
  }
  requireCaller(caller);
  if (b.claimCode !== undefined && b.homeId !== undefined) {
    const input = { claimCode: b.claimCode, homeId: b.homeId };
    const lanes: Lane[] = [ip, { key: `guess:${callerKey(caller)}`, policy: 'client' }];
    return throttled(deps.authThrottle, lanes, ['DEVICE_NOT_CLAIMABLE'], () => claimDevice({ deps, caller, input }));
  }
  if (b.projectId !== undefined && b.deviceClass !== undefined) {
    // docs/api.md#device-operations rule 5: name, description, tag, channel and bundleInstalled only with projectId
    const { projectId, deviceClass, homeId, name, description, tag, channel, bundleInstalled } = b;
    return createDevice({ deps, caller, input: { projectId, deviceClass, homeId, name, description, tag, channel, bundleInstalled } });
  }
  const missing = b.claimCode !== undefined ? ['homeId'] : b.homeId !== undefined ? ['claimCode'] : b.projectId !== undefined ? ['deviceClass'] : undefined;
  throw new AppError('MISSING_PARAMETERS', {
    ...(missing ? { fields: missing } : {}),
    message: 'send {token}, {claimCode, homeId} or {projectId, deviceClass}',
  });
}
