// The client certificate a device presented (docs/tls.md#client-certificates): on MQTTS the connection's TLS
// socket, on MQTT over WSS the socket of the HTTP upgrade. Undefined when certificates are off or
// none was presented; which device it names is the domain's business (deviceForCertificate).
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { PresentedCertificate } from '../../src/domain/certificate/index.js';
import type { BrokerContext } from '../context.js';

export function presentedCertificate(ctx: BrokerContext, socket: unknown): PresentedCertificate | undefined {
  const settings = ctx.deps.options.clientCertificates;
  if (settings?.mode !== 'optional') return undefined;
  const tls = socket as Partial<TLSSocket> | undefined;
  if (typeof tls?.getPeerCertificate !== 'function') return undefined;
  const peer = tls.getPeerCertificate();
  if (!peer?.raw) return undefined;
  const x509 = new X509Certificate(peer.raw);
  return {
    fingerprint256: x509.fingerprint256,
    subject: x509.subject,
    validFrom: x509.validFrom,
    validTo: x509.validTo,
    // a verified chain means "issued by HEARTH_TLS_CA_FILE" only when that file is what Node checked against
    caVerified: settings.caFile && tls.authorized === true,
  };
}
