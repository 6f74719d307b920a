// Store contract: transactions (commit, rollback of every write, nesting, syncing later) and ping.
import { describe, expect, it } from 'vitest';
import { KvKeyLimitError, type Store } from '../../../src/ports/store.js';
import { all, at, deviceInput, freshStore, newProject, userInput, type MakeStore } from './fixtures.js';

/** one write through every repository of `tx`, on top of what `seedBefore` made */
async function writeEverywhere(tx: Store, before: { projectId: number; deviceId: number }) {
  const p = await tx.projects.create({ name: 'in tx', creationTime: at(1) });
  const u = await tx.users.create(userInput(p.id));
  const h = await tx.homes.create({ projectId: p.id, name: 'in tx', creationTime: at(1) });
  await tx.members.upsert({ homeId: h.id, userId: u.id, role: 'owner', creationTime: at(1) });
  await tx.sessions.create({ tokenHash: 'tx-session', userId: u.id, projectId: p.id, creationTime: at(1), expirationTime: at(9) });
  await tx.apiKeys.create({ id: 'tx-key', projectId: p.id, name: 'k', scopes: [], keyHash: 'tx-key-hash', creationTime: at(1) });
  await tx.deviceClasses.create({ projectId: p.id, id: 'lamp', name: null, description: null, creationTime: at(1) });
  await tx.devices.create(deviceInput(before.projectId, { apiKeyHash: 'tx-device' }));
  await tx.devices.update(before.deviceId, { name: 'renamed in tx' });
  await tx.devices.setConnected(before.deviceId, true, at(1));
  await tx.provisioningTokens.consume('tok', at(1));
  await tx.bundles.create({
    id: 'tx-bundle',
    projectId: p.id,
    name: null,
    description: null,
    deviceClass: 'lamp',
    channel: null,
    components: [],
    creationTime: at(1),
  });
  await tx.kv.set('device', before.deviceId, 'new', 1, at(1), 10);
  await tx.kv.delete('device', before.deviceId, 'old');
  await tx.accessLogs.insertMany([{ projectId: before.projectId, clientIp: '::1', latency: 1, method: 'GET', path: '/', statusCode: 200, timestamp: at(1) }]);
  await tx.logs.insert({ projectId: before.projectId, caller: null, level: 1, source: 'api', text: 'tx', timestamp: at(1) });
  await tx.events.insert({ id: 'tx-event', projectId: before.projectId, event: { eventType: 'x', eventData: {}, timestamp: at(1) } });
}

async function seedBefore(store: Store) {
  const p = await newProject(store);
  const d = await store.devices.create(deviceInput(p.id, { name: 'original' }));
  await store.kv.set('device', d.id, 'old', 'value', at(0), 10);
  await store.provisioningTokens.create({
    tokenHash: 'tok',
    projectId: p.id,
    homeId: 1,
    deviceClass: 'lamp',
    deviceTag: null,
    expirationTime: at(600),
    usedTime: null,
  });
  return { projectId: p.id, deviceId: d.id, device: d };
}

export function transactionContract(make: MakeStore): void {
  describe('transaction', () => {
    it('commits: what fn wrote is visible afterwards, and fn’s result is returned', async () => {
      const store = await freshStore(make);
      const before = await seedBefore(store);
      const result = await store.transaction(async (tx) => {
        await writeEverywhere(tx, before);
        return 'done';
      });
      expect(result).toBe('done');
      expect(await store.projects.count()).toBe(2);
      expect(await store.devices.get(before.deviceId)).toMatchObject({ name: 'renamed in tx', isConnected: true });
      expect(await store.kv.list('device', before.deviceId)).toMatchObject({ rev: 3, items: [{ key: 'new' }] });
      expect(await store.apiKeys.getByHash('tx-key-hash')).toBeDefined();
      expect(await store.events.list({ projectId: before.projectId }, all)).toMatchObject({ total: 1 });
    });

    it('rolls back every write made through the tx store when fn throws, and rethrows', async () => {
      const store = await freshStore(make);
      const before = await seedBefore(store);
      const boom = new Error('boom');
      await expect(
        store.transaction(async (tx) => {
          await writeEverywhere(tx, before);
          throw boom;
        }),
      ).rejects.toBe(boom);
      expect(await store.projects.count()).toBe(1);
      expect(await store.users.getByEmail(before.projectId, 'x')).toBeUndefined();
      expect(await store.sessions.getByHash('tx-session')).toBeUndefined();
      expect(await store.apiKeys.getByHash('tx-key-hash')).toBeUndefined();
      expect(await store.homes.list({}, all)).toEqual({ total: 0, items: [] });
      expect(await store.devices.getByKeyHash('tx-device')).toBeUndefined();
      expect(await store.devices.get(before.deviceId)).toEqual(before.device);
      expect(await store.bundles.get('tx-bundle')).toBeUndefined();
      expect(await store.kv.list('device', before.deviceId)).toEqual({
        rev: 1,
        items: [{ key: 'old', value: 'value', modificationTime: at(0) }],
      });
      expect(await store.accessLogs.list({ projectId: before.projectId }, all)).toEqual({ total: 0, items: [] });
      expect(await store.logs.list({ projectId: before.projectId }, all)).toEqual({ total: 0, items: [] });
      expect(await store.events.list({ projectId: before.projectId }, all)).toEqual({ total: 0, items: [] });
      // the token was not spent, and the store still works after the rollback
      expect(await store.provisioningTokens.consume('tok', at(2))).toMatchObject({ usedTime: at(2) });
    });

    it('rolls back when an error escapes, such as a refused kv key', async () => {
      const store = await freshStore(make);
      const run = store.transaction(async (tx) => {
        await tx.kv.set('home', 1, 'a', 1, at(1), 1);
        await tx.kv.set('home', 1, 'b', 1, at(1), 1);
      });
      await expect(run).rejects.toBeInstanceOf(KvKeyLimitError);
      expect(await store.kv.list('home', 1)).toEqual({ rev: 0, items: [] });
    });

    it('sees its own writes inside the transaction', async () => {
      const store = await freshStore(make);
      await store.transaction(async (tx) => {
        const p = await newProject(tx);
        expect(await tx.projects.get(p.id)).toEqual(p);
        await tx.kv.set('device', 1, 'a', 1, at(1), 10);
        expect(await tx.kv.list('device', 1)).toMatchObject({ rev: 1, items: [{ key: 'a', value: 1 }] });
      });
    });

    it('runs a nested transaction inside the outer one, committed with it', async () => {
      const store = await freshStore(make);
      const inner = await store.transaction(async (tx) => {
        await newProject(tx, 'outer');
        return tx.transaction(async (nested) => (await newProject(nested, 'inner')).name);
      });
      expect(inner).toBe('inner');
      expect((await store.projects.list()).map((p) => p.name)).toEqual(['outer', 'inner']);
    });

    it('rolls back a nested transaction’s writes when the outer one throws', async () => {
      const store = await freshStore(make);
      await expect(
        store.transaction(async (tx) => {
          await tx.transaction(async (nested) => {
            await newProject(nested, 'inner');
            await nested.kv.set('device', 1, 'a', 1, at(1), 10);
          });
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await store.projects.count()).toBe(0);
      expect(await store.kv.list('device', 1)).toEqual({ rev: 0, items: [] });
    });

    it('keeps every write of concurrent transactions', async () => {
      const store = await freshStore(make);
      const revs = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.transaction(async (tx) => {
            await newProject(tx, `p${i}`);
            return (await tx.kv.set('device', 1, `k${i}`, i, at(i), 100)).rev;
          }),
        ),
      );
      expect(revs.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await store.projects.count()).toBe(10);
    });
  });

  describe('transaction that syncs later', () => {
    it('commits and rolls back like any transaction; synced() then resolves', async () => {
      const store = await freshStore(make);
      const p = await store.transaction((tx) => newProject(tx, 'later'), { syncLater: true });
      await expect(store.transaction(async (tx) => (await newProject(tx, 'gone'), Promise.reject(new Error('boom'))), { syncLater: true })).rejects.toThrow(
        'boom',
      );
      await expect(store.synced()).resolves.toBeUndefined();
      expect(await store.projects.list()).toEqual([p]);
    });
  });

  describe('ping', () => {
    it('answers when the database is reachable', async () => {
      const store = await freshStore(make);
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}
