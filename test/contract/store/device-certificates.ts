// Store contract: device certificates (docs/tls.md#client-certificates) and the device-class setting that
// requires them.
import { describe, expect, it } from 'vitest';
import type { DeviceCertificateRow } from '../../../src/ports/store.js';
import { at, deviceInput, freshStore, newProject, unique } from './fixtures.js';
import type { MakeStore } from './fixtures.js';

const cert = (deviceId: number, projectId: number, over: Partial<DeviceCertificateRow> = {}): DeviceCertificateRow => ({
  fingerprint: unique('fp'),
  deviceId,
  projectId,
  subject: 'CN=lamp',
  notBefore: at(0),
  notAfter: at(86_400),
  pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  creationTime: at(1),
  ...over,
});

export function deviceCertificatesContract(make: MakeStore): void {
  describe('deviceCertificates', () => {
    it('adds, finds by fingerprint, lists per device oldest first, deletes one and all of a device', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const a = await store.devices.create(deviceInput(p.id));
      const b = await store.devices.create(deviceInput(p.id));
      const first = cert(a.id, p.id, { creationTime: at(1) });
      const second = cert(a.id, p.id, { creationTime: at(2) });
      const other = cert(b.id, p.id);
      for (const c of [second, first, other]) expect(await store.deviceCertificates.add(c)).toBe(true);
      expect(await store.deviceCertificates.get(first.fingerprint)).toEqual(first);
      expect(await store.deviceCertificates.get('nope')).toBeUndefined();
      expect(await store.deviceCertificates.list(a.id)).toEqual([first, second]);
      expect(await store.deviceCertificates.list(b.id)).toEqual([other]);
      // a fingerprint names one certificate: a second add is refused, on any device
      expect(await store.deviceCertificates.add({ ...first, deviceId: b.id })).toBe(false);
      expect(await store.deviceCertificates.get(first.fingerprint)).toEqual(first);
      // deleting needs the right device
      expect(await store.deviceCertificates.delete(b.id, first.fingerprint)).toBe(false);
      expect(await store.deviceCertificates.delete(a.id, first.fingerprint)).toBe(true);
      expect(await store.deviceCertificates.delete(a.id, first.fingerprint)).toBe(false);
      expect(await store.deviceCertificates.list(a.id)).toEqual([second]);
      expect(await store.deviceCertificates.deleteForDevice(a.id)).toBe(1);
      expect(await store.deviceCertificates.list(a.id)).toEqual([]);
      expect(await store.deviceCertificates.get(other.fingerprint)).toEqual(other);
    });

    it('records a revocation once per fingerprint, finds it, lists per device oldest first; a deleted device takes its revocations', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      const a = await store.devices.create(deviceInput(p.id));
      const b = await store.devices.create(deviceInput(p.id));
      const first = { fingerprint: unique('rv'), deviceId: a.id, projectId: p.id, creationTime: at(1) };
      const second = { fingerprint: unique('rv'), deviceId: a.id, projectId: p.id, creationTime: at(2) };
      const other = { fingerprint: unique('rv'), deviceId: b.id, projectId: p.id, creationTime: at(1) };
      for (const r of [second, first, other]) expect(await store.deviceCertificates.revoke(r)).toBe(true);
      expect(await store.deviceCertificates.revoke({ ...first, creationTime: at(3) })).toBe(false);
      expect(await store.deviceCertificates.revocation(first.fingerprint)).toEqual(first);
      expect(await store.deviceCertificates.revocation('nope')).toBeUndefined();
      expect(await store.deviceCertificates.revocations(a.id)).toEqual([first, second]);
      expect(await store.deviceCertificates.deleteForDevice(a.id)).toBe(0);
      expect(await store.deviceCertificates.revocations(a.id)).toEqual([]);
      expect(await store.deviceCertificates.revocation(other.fingerprint)).toEqual(other);
    });

    it('a device class requires certificates once set, and not after it is unset', async () => {
      const store = await freshStore(make);
      const p = await newProject(store);
      await store.deviceClasses.create({ projectId: p.id, id: 'lamp', name: null, description: null, creationTime: at(0) });
      expect((await store.deviceClasses.get(p.id, 'lamp'))?.certificateRequired).toBe(false);
      expect(await store.deviceClasses.setCertificateRequired(p.id, 'lamp', true)).toBe(true);
      expect((await store.deviceClasses.get(p.id, 'lamp'))?.certificateRequired).toBe(true);
      expect((await store.deviceClasses.list(p.id)).map((c) => c.certificateRequired)).toEqual([true]);
      expect(await store.deviceClasses.setCertificateRequired(p.id, 'lamp', false)).toBe(true);
      expect((await store.deviceClasses.get(p.id, 'lamp'))?.certificateRequired).toBe(false);
      expect(await store.deviceClasses.setCertificateRequired(p.id, 'fan', true)).toBe(false);
    });
  });
}
