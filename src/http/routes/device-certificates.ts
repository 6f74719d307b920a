// Device certificates (docs/tls.md#client-certificates, docs/api.md#device-certificates): register, list and revoke the client
// certificates a device may sign in with on MQTTS and WSS. Mounted at /devices. Caller: a project
// key with scope devices.
import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { HttpEnv } from '../env.js';
import { op } from '../op.js';
import { readBody } from '../body.js';
import { actor, pathId } from '../params.js';
import {
  AddCertificateBodySchema,
  CertificateSchema,
  RevocationSchema,
  RevokeCertificateBodySchema,
  addDeviceCertificate,
  listCertificateRevocations,
  listDeviceCertificates,
  revokeDeviceCertificate,
  revokeIssuedCertificate,
} from '../../domain/certificate/index.js';

const tag = 'device certificates';
const auth = 'a project key with scope devices';
const did = (c: Context) => pathId(c, 'deviceId', 'DEVICE_NOT_FOUND');

export function deviceCertificatesRoutes(): Hono<HttpEnv> {
  const r = new Hono<HttpEnv>();

  r.get(
    '/:deviceId/certificates',
    op({
      operationId: 'getDeviceCertificates',
      summary: 'The client certificates registered on a device, oldest first',
      tag,
      success: 200,
      statuses: [401, 403, 404, 429, 500, 503],
      response: v.array(CertificateSchema),
      auth,
    }),
    async (c) => c.json(await listDeviceCertificates({ ...actor(c), input: { deviceId: did(c) } })),
  );

  r.post(
    '/:deviceId/certificates',
    op({
      operationId: 'addDeviceCertificate',
      summary: 'Register a client certificate (PEM; self-signed allowed) the device may sign in with on MQTTS and WSS',
      tag,
      success: 201,
      statuses: [401, 403, 404, 413, 429, 500, 503],
      body: AddCertificateBodySchema,
      response: CertificateSchema,
      auth,
    }),
    async (c) => c.json(await addDeviceCertificate({ ...actor(c), input: { deviceId: did(c), body: await readBody(c) } }), 201),
  );

  r.get(
    '/:deviceId/certificates/revocations',
    op({
      operationId: 'getDeviceCertificateRevocations',
      summary: 'The CA-issued certificates of a device revoked by fingerprint, oldest first',
      tag,
      success: 200,
      statuses: [401, 403, 404, 429, 500, 503],
      response: v.array(RevocationSchema),
      auth,
    }),
    async (c) => c.json(await listCertificateRevocations({ ...actor(c), input: { deviceId: did(c) } })),
  );

  r.post(
    '/:deviceId/certificates/revocations',
    op({
      operationId: 'revokeIssuedDeviceCertificate',
      summary:
        'Revoke a certificate issued by HEARTH_TLS_CA_FILE by its sha256 fingerprint (a registered one is deleted instead): it is refused from now on and its live connections close',
      tag,
      success: 201,
      statuses: [401, 403, 404, 413, 429, 500, 503],
      body: RevokeCertificateBodySchema,
      response: RevocationSchema,
      auth,
    }),
    async (c) => c.json(await revokeIssuedCertificate({ ...actor(c), input: { deviceId: did(c), body: await readBody(c) } }), 201),
  );

  r.delete(
    '/:deviceId/certificates/:fingerprint',
    op({
      operationId: 'deleteDeviceCertificate',
      summary: 'Revoke a device certificate (sha256 fingerprint, hex with or without colons): its live connections close',
      tag,
      success: 204,
      statuses: [401, 403, 404, 429, 500, 503],
      auth,
    }),
    async (c) => {
      await revokeDeviceCertificate({ ...actor(c), input: { deviceId: did(c), fingerprint: c.req.param('fingerprint') } });
      return c.body(null, 204);
    },
  );
  return r;
}
