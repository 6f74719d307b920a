// Mounted at /deviceRegistration (see index.ts). Update device claimable state (docs/devices.md#claiming-and-provisioning,
// docs/concepts.md#devices), by the device itself; real firmware posts it form-encoded (readBody handles both).
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { STATUSES } from '../params.js';
import { RegistrationBodySchema, RegistrationResponseSchema, updateClaimable } from '../../domain/device/index.js';

export const registrationRoutes = resource({ tag: 'devices' }, (r, op) => {
  r.post(
    '/',
    op({
      operationId: 'updateDeviceClaimableState',
      summary: 'Open (for `duration` s) or close the claimable window of the calling device',
      success: 200,
      statuses: STATUSES.read,
      body: RegistrationBodySchema,
      response: RegistrationResponseSchema,
      auth: 'the device itself',
    }),
    async (c) => c.json(await updateClaimable({ deps: c.get('deps'), caller: c.get('caller'), input: { body: await readBody(c) } })),
  );
});
