// Device certificates (docs/tls.md#client-certificates): one row per registered certificate, keyed by its
// sha256 fingerprint (a certificate names one device), listed per device.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { CertificateRevocationRow, DeviceCertificateRepo, DeviceCertificateRow } from '../../ports/store.js';

/** the tables' columns are the port's rows (one source for both) */
export type DeviceCertificatesTable = DeviceCertificateRow;
export type CertificateRevocationsTable = CertificateRevocationRow;
type Db = Kysely<Database & { deviceCertificates: DeviceCertificatesTable; certificateRevocations: CertificateRevocationsTable }>;

export function deviceCertificateRepo(base: Kysely<Database>): DeviceCertificateRepo {
  const db = base as unknown as Db;
  return {
    async add(c) {
      const r = await db
        .insertInto('deviceCertificates')
        .values(c)
        .onConflict((oc) => oc.column('fingerprint').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    get: (fingerprint) => db.selectFrom('deviceCertificates').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst(),
    list: (deviceId) =>
      db.selectFrom('deviceCertificates').selectAll().where('deviceId', '=', deviceId).orderBy('creationTime').orderBy('fingerprint').execute(),
    async delete(deviceId, fingerprint) {
      const r = await db.deleteFrom('deviceCertificates').where('deviceId', '=', deviceId).where('fingerprint', '=', fingerprint).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    async deleteForDevice(deviceId) {
      await db.deleteFrom('certificateRevocations').where('deviceId', '=', deviceId).execute();
      const r = await db.deleteFrom('deviceCertificates').where('deviceId', '=', deviceId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async revoke(row) {
      const r = await db
        .insertInto('certificateRevocations')
        .values(row)
        .onConflict((oc) => oc.column('fingerprint').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    revocation: (fingerprint) => db.selectFrom('certificateRevocations').selectAll().where('fingerprint', '=', fingerprint).executeTakeFirst(),
    revocations: (deviceId) =>
      db.selectFrom('certificateRevocations').selectAll().where('deviceId', '=', deviceId).orderBy('creationTime').orderBy('fingerprint').execute(),
  };
}
