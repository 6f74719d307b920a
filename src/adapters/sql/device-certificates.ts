// Device certificates (docs/tls.md#client-certificates): one row per registered certificate, keyed by its
// sha256 fingerprint (a certificate names one device), listed per device.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { DeviceCertificateRepo, DeviceCertificateRow } from '../../ports/store.js';

/** the table's columns are the port's row (one source for both) */
export type DeviceCertificatesTable = DeviceCertificateRow;
type Db = Kysely<Database & { deviceCertificates: DeviceCertificatesTable }>;

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
      const r = await db.deleteFrom('deviceCertificates').where('deviceId', '=', deviceId).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
  };
}
