// Mounted at /deviceRegistration (see index.ts). Update device claimable state (docs/devices.md#claiming-and-provisioning,
// docs/concepts.md#devices), by the device itself; real firmware posts it form-encoded (readBody handles both).
import { Hono } from 'hono';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { actor } from '../params.js';
import { RegistrationBodySchema, RegistrationResponseSchema, updateClaimable } from '../../domain/device/index.js';

export function registrationRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.post(
    '/',
    op({
      operationId: 'updateDeviceClaimableState',
      summary: 'Open (for `duration` s) or close the claimable window of the calling device',
      tag: 'devices',
      success: 200,
      statuses: [401, 403, 404, 429, 500, 503],
      body: RegistrationBodySchema,
      response: RegistrationResponseSchema,
      auth: 'the device itself',
    }),
    async (c) => c.json(await updateClaimable({ ...actor(c), input: { body: await readBody(c) } })),
  );

  return r;
}
