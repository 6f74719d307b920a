// Device certificates (docs/tls.md#client-certificates): one row per registered certificate, keyed by its
// sha256 fingerprint (a certificate names one device), listed per device.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { CertificateRevocationRow, DeviceCertificateRepo, DeviceCertificateRow } from '../../ports/store.js';
import { deletedCount, deletedRow, insertedRow } from './util.js';

/** the tables' columns are the port's rows (one source for both) */
export type DeviceCertificatesTable = DeviceCertificateRow;
export type CertificateRevocationsTable = CertificateRevocationRow;
type Db = Kysely<Database & { deviceCertificates: DeviceCertificatesTable; certificateRevocations: CertificateRevocationsTable }>;

export function deviceCertificateRepo(base: Kysely<Database>): DeviceCertificateRepo {
  const db = base as unknown as Db;
  return {
    add: (c) => insertedRow(db.insertInto('deviceCertificates').values(c), ['fingerprint']),
    get: (fingerprint) => db.selectFrom('deviceCertificates').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst(),
    list: (deviceId) =>
      db.selectFrom('deviceCertificates').selectAll().where('deviceId', '=', deviceId).orderBy('creationTime').orderBy('fingerprint').execute(),
    delete: (deviceId, fingerprint) => deletedRow(db.deleteFrom('deviceCertificates').where('deviceId', '=', deviceId).where('fingerprint', '=', fingerprint)),
    async deleteForDevice(deviceId) {
      await db.deleteFrom('certificateRevocations').where('deviceId', '=', deviceId).execute();
      return deletedCount(db.deleteFrom('deviceCertificates').where('deviceId', '=', deviceId));
    },
    revoke: (row) => insertedRow(db.insertInto('certificateRevocations').values(row), ['fingerprint']),
    revocation: (fingerprint) => db.selectFrom('certificateRevocations').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst(),
    revocations: (deviceId) =>
      db.selectFrom('certificateRevocations').selectAll().where('deviceId', '=', deviceId).orderBy('creationTime').orderBy('fingerprint').execute(),
  };
}
