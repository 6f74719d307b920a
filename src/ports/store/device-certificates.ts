// Device certificates (docs/tls.md#client-certificates): X.509 client certificates registered on a
// device, found by their sha256 fingerprint when a device signs in over MQTTS or WSS.
export interface DeviceCertificateRow {
  /** sha256 of the DER, lowercase hex without separators: unique, one certificate names one device */
  fingerprint: string;
  deviceId: number;
  projectId: number;
  /** the subject as one line (`CN=lamp-1, O=Acme`) */
  subject: string;
  notBefore: string;
  notAfter: string;
  /** the certificate as registered (PEM) */
  pem: string;
  creationTime: string;
}

/** a certificate shut out by fingerprint (docs/tls.md#revoking-a-ca-issued-certificate): one the CA issued, never registered */
export interface CertificateRevocationRow {
  fingerprint: string;
  deviceId: number;
  projectId: number;
  creationTime: string;
}

export interface DeviceCertificateRepo {
  /** false when the fingerprint is already registered (on this device or another) */
  add(c: DeviceCertificateRow): Promise<boolean>;
  get(fingerprint: string): Promise<DeviceCertificateRow | undefined>;
  /** the device's certificates, oldest first */
  list(deviceId: number): Promise<DeviceCertificateRow[]>;
  /** false when the device has no such certificate */
  delete(deviceId: number, fingerprint: string): Promise<boolean>;
  /** every certificate of a device and its revocations (the device is deleted); answers how many certificates */
  deleteForDevice(deviceId: number): Promise<number>;
  /** records a revocation; false when the fingerprint was already revoked */
  revoke(r: CertificateRevocationRow): Promise<boolean>;
  revocation(fingerprint: string): Promise<CertificateRevocationRow | undefined>;
  /** the device's revocations, oldest first */
  revocations(deviceId: number): Promise<CertificateRevocationRow[]>;
}
