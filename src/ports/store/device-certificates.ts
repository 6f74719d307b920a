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

export interface DeviceCertificateRepo {
  /** false when the fingerprint is already registered (on this device or another) */
  add(c: DeviceCertificateRow): Promise<boolean>;
  get(fingerprint: string): Promise<DeviceCertificateRow | undefined>;
  /** the device's certificates, oldest first */
  list(deviceId: number): Promise<DeviceCertificateRow[]>;
  /** false when the device has no such certificate */
  delete(deviceId: number, fingerprint: string): Promise<boolean>;
  /** every certificate of a device (the device is deleted); answers how many */
  deleteForDevice(deviceId: number): Promise<number>;
}
