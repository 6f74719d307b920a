// Device certificates (docs/tls.md#client-certificates, docs/api.md#device-certificates): register, list and revoke the client
// certificates a device may sign in with on MQTTS and WSS. Mounted at /devices. Caller: a project
// key with scope devices.
import * as v from 'valibot';
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { STATUSES, deviceIdIn } from '../params.js';
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
import { noContent } from '../no-content.js';

/** a certificate's PEM may be over its size limit */
const UPLOAD = [401, 403, 404, 413, 429, 500, 503] as const;

export const deviceCertificatesRoutes = resource({ tag: 'device certificates', statuses: STATUSES.read, auth: 'a project key with scope devices' }, (r, op) => {
  r.get(
    '/:deviceId/certificates',
    op({
      operationId: 'getDeviceCertificates',
      summary: 'The client certificates registered on a device, oldest first',
      success: 200,
      response: v.array(CertificateSchema),
    }),
    async (c) => c.json(await listDeviceCertificates({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c) } })),
  );

  r.post(
    '/:deviceId/certificates',
    op({
      operationId: 'addDeviceCertificate',
      summary: 'Register a client certificate (PEM; self-signed allowed) the device may sign in with on MQTTS and WSS',
      success: 201,
      statuses: UPLOAD,
      body: AddCertificateBodySchema,
      response: CertificateSchema,
    }),
    async (c) =>
      c.json(await addDeviceCertificate({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), body: await readBody(c) } }), 201),
  );

  r.get(
    '/:deviceId/certificates/revocations',
    op({
      operationId: 'getDeviceCertificateRevocations',
      summary: 'The CA-issued certificates of a device revoked by fingerprint, oldest first',
      success: 200,
      response: v.array(RevocationSchema),
    }),
    async (c) => c.json(await listCertificateRevocations({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c) } })),
  );

  r.post(
    '/:deviceId/certificates/revocations',
    op({
      operationId: 'revokeIssuedDeviceCertificate',
      summary:
        'Revoke a certificate issued by HEARTH_TLS_CA_FILE by its sha256 fingerprint (a registered one is deleted instead): it is refused from now on and its live connections close',
      success: 201,
      statuses: UPLOAD,
      body: RevokeCertificateBodySchema,
      response: RevocationSchema,
    }),
    async (c) =>
      c.json(await revokeIssuedCertificate({ deps: c.get('deps'), caller: c.get('caller'), input: { deviceId: deviceIdIn(c), body: await readBody(c) } }), 201),
  );

  r.delete(
    '/:deviceId/certificates/:fingerprint',
    op({
      operationId: 'deleteDeviceCertificate',
      summary: 'Revoke a device certificate (sha256 fingerprint, hex with or without colons): its live connections close',
      success: 204,
    }),
    async (c) => {
      await revokeDeviceCertificate({
        deps: c.get('deps'),
        caller: c.get('caller'),
        input: { deviceId: deviceIdIn(c), fingerprint: c.req.param('fingerprint') },
      });
      return noContent(c);
    },
  );
});
