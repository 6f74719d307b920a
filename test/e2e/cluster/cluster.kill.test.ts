// Nodes that die (issue #6), with SIGKILL so nothing is cleaned up on the way out:
// - broker B: the devices it held go offline within the Presence bound (nodeTimeoutMs +
//   heartbeatMs, small here), those on broker A stay online, and a device of B that reconnects
//   to A gets commands there;
// - a worker in the middle of webhook deliveries: the rows it had leased are claimed again by the
//   other worker once the lease ends (webhooks.leaseSeconds, docs/webhooks.md#retries), so every delivery id arrives
//   at least once and none is missing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import pg from 'pg';
import { canRunCluster, CLUSTER_START_HOOK_MS, startCluster, type Cluster } from '../../helpers/cluster.js';
import { inbox } from '../broker/clients.js';
import { startReceiver } from '../webhooks/receiver.js';
import { commandTopic, connectDevice, createDevice, createEventModule, createHome, deliveriesOf, isConnected } from './fixtures.js';

const CONCURRENCY = 4;

describe.skipIf(!canRunCluster)('cluster nodes killed with SIGKILL', () => {
  let c: Cluster;
  let homeId: number;

  beforeAll(async () => {
    c = await startCluster({
      nodes: [
        { name: 'api', roles: ['api'] },
        { name: 'A', roles: ['broker'] },
        { name: 'B', roles: ['broker'] },
        { name: 'w1', roles: ['worker'] },
        { name: 'w2', roles: ['worker'] },
      ],
      env: {
        HEARTH_PRESENCE_HEARTBEAT_MS: '500',
        HEARTH_PRESENCE_NODE_TIMEOUT_MS: '1500',
        // the delivery lease is webhooks.leaseSeconds (default 12 s), renewed while a live worker holds a row
        // the receiver holds every request until the kill: no worker gives up on one before it
        HEARTH_WEBHOOKS_TIMEOUT_MS: '60000',
        HEARTH_WEBHOOKS_POLL_MS: '200',
        HEARTH_WEBHOOKS_CONCURRENCY: String(CONCURRENCY),
        HEARTH_WEBHOOKS_RETRY_SCHEDULE_SECONDS: '1,1,1,1,1',
        HEARTH_RATE_LIMIT_ENABLED: 'false',
      },
    });
    homeId = await createHome(c, 'api');
  }, CLUSTER_START_HOOK_MS);
  afterAll(async () => {
    await c?.close();
  }, 60_000);

  it(
    'the devices of a killed broker go offline, the others stay, and a device reconnecting to the other broker gets commands there',
    // the sum of the waits' own bounds: the timeout only bounds a hang
    { timeout: 120_000 },
    async () => {
      const onB = await createDevice(c, 'api', homeId);
      const onA = await createDevice(c, 'api', homeId);
      const clientB = await connectDevice(c.node('B'), onB);
      await clientB.subscribeAsync({ [commandTopic(onB.id)]: { qos: 1 } });
      const clientA = await connectDevice(c.node('A'), onA);
      await clientA.subscribeAsync({ [commandTopic(onA.id)]: { qos: 1 } });
      await expect.poll(() => isConnected(c, 'api', onB.id), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => isConnected(c, 'api', onA.id), { timeout: 10_000 }).toBe(true);

      await c.node('B').kill('SIGKILL');
      // nobody reports B's connections closed: the other nodes' reapers find B silent
      await expect.poll(() => isConnected(c, 'api', onB.id), { timeout: 20_000, interval: 200 }).toBe(false);
      const offline = await c.http('api', 'PUT', `/devices/${onB.id}/command`, { body: { action: 'anyone-there' } });
      expect(offline.status).toBe(403);
      expect(offline.body).toMatchObject({ reason: 'DEVICE_OFFLINE' });
      // the reaper marks the device offline, then records the event (domain/presence/orphaned.ts): on a
      // loaded machine the test once read the device offline and no event yet
      const disconnects = async () => {
        const events = await c.http('api', 'GET', `/events?projectId=1&deviceId=${onB.id}&eventType=_deviceDisconnected_`);
        expect(events.status).toBe(200);
        return events.body as unknown[];
      };
      await expect.poll(async () => (await disconnects()).length, { timeout: 20_000, interval: 200 }).toBeGreaterThan(0);
      expect(await disconnects()).toHaveLength(1);
      expect(await isConnected(c, 'api', onA.id)).toBe(true);

      const again = await connectDevice(c.node('A'), onB);
      const box = inbox(again);
      await again.subscribeAsync({ [commandTopic(onB.id)]: { qos: 1 } });
      await expect.poll(() => isConnected(c, 'api', onB.id), { timeout: 10_000 }).toBe(true);
      expect((await c.http('api', 'PUT', `/devices/${onB.id}/command`, { body: { action: 'welcome-back' } })).status).toBe(204);
      expect(await box.next(commandTopic(onB.id), 10_000)).toEqual({ action: 'welcome-back', parameters: {} });
    },
  );

  it(
    'deliveries of a worker killed mid-delivery are delivered by the other worker: every delivery id at least once, none missing',
    // the sum of the waits' own bounds: the timeout only bounds a hang
    { timeout: 240_000 },
    async () => {
      const device = await createDevice(c, 'api', homeId);
      const rx = await startReceiver();
      // a receiver that answers nothing before the kill: the requests w2 has open when the poll
      // below sees them are still open when the kill lands, however late it lands. (A hold of 3 s
      // from arrival, once, on a loaded machine, had let every one of them be answered first.)
      const cutOff = new Set<string>();
      // the delivery ids of the requests open at the receiver now
      const open = new Set<string>();
      const held: ServerResponse[] = [];
      let answering = false;
      rx.reply((r, res) => {
        const id = String(r.headers['x-service-delivery']);
        open.add(id);
        res.on('close', () => {
          open.delete(id);
          if (!res.writableFinished) cutOff.add(id);
        });
        if (answering) res.end('ok');
        else held.push(res);
      });
      rx.trust(await createEventModule(c, 'api', 'slow-hook', rx.url, ['killTest']));

      const N = 80;
      for (let n = 0; n < N; n++) {
        const r = await c.http('api', 'PUT', `/devices/${device.id}/event`, { body: { eventType: 'killTest', eventData: { n } } });
        expect(r.status).toBe(204);
      }

      // the kill comes while w2 has requests in flight
      const w2 = c.node('w2');
      // the delivery ids w2 had open at the receiver when it was killed
      let inFlight: string[] = [];
      const db = new pg.Client({ connectionString: c.databaseUrl });
      await db.connect();
      try {
        await db.query(`set search_path to "${c.schema}"`);
        const heldBy = async (pid: number) =>
          Number((await db.query(`select count(*) as n from deliveries where status = 'delivering' and claimed_by like $1`, [`%:${pid}:%`])).rows[0].n);
        // w2's own requests open at the receiver: the open ids it holds (more than CONCURRENCY open
        // did not say whose they were; twice, w2 held leases but had none open)
        const openIdsOf = async (pid: number): Promise<string[]> =>
          (await db.query(`select id from deliveries where claimed_by like $1 and id = any($2)`, [`%:${pid}:%`, [...open]])).rows.map((r) => String(r.id));
        const openOf = async (pid: number) => (await openIdsOf(pid)).length;
        await expect.poll(() => openOf(w2.child.pid!), { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
        inFlight = await openIdsOf(w2.child.pid!);
        await w2.kill('SIGKILL');
        const killedAt = Date.now();
        expect(await heldBy(w2.child.pid!), 'rows leased by the killed worker').toBeGreaterThan(0);
        // issue 23 defect 6: the killed worker's rows are free again within the lease (12 s by default),
        // not 40 s: no lease it wrote ends later than that after the kill
        const leaseEnds = (
          await db.query(`select max(next_attempt_time) as t from deliveries where status = 'delivering' and claimed_by like $1`, [`%:${w2.child.pid}:%`])
        ).rows[0].t;
        expect(Date.parse(leaseEnds)).toBeLessThanOrEqual(killedAt + 12_000);
      } finally {
        await db.end();
      }
      // the receiver sees the killed worker's connections close; only then does it answer what it
      // holds (an answer written first could still count as sent)
      expect(inFlight.length, 'requests of w2 open at the kill').toBeGreaterThan(0);
      await expect.poll(() => inFlight.filter((id) => !cutOff.has(id)), { timeout: 30_000 }).toEqual([]);
      answering = true;
      for (const res of held) if (!res.destroyed) res.end('ok');

      // the other worker takes the rest now, and the killed worker's rows once their lease ends
      await expect
        .poll(async () => (await deliveriesOf(c, 'api', 'slow-hook')).filter((d) => d.status === 'success').length, { timeout: 90_000, interval: 500 })
        .toBe(N);
      const log = await deliveriesOf(c, 'api', 'slow-hook');
      expect(log).toHaveLength(N);
      expect(new Set(rx.received.map((r) => String(r.headers['x-service-delivery'])))).toEqual(new Set(log.map((d) => d.id)));
      expect(new Set(rx.received.map((r) => r.body.eventData.n))).toEqual(new Set([...Array(N).keys()]));
      // one delivery id per event, the same on a repeat
      const idOf = new Map<number, Set<string>>();
      for (const r of rx.received) idOf.set(r.body.eventData.n, (idOf.get(r.body.eventData.n) ?? new Set()).add(String(r.headers['x-service-delivery'])));
      for (const [n, set] of idOf) expect(set.size, `event ${n}`).toBe(1);
      expect(rx.received.every((r) => r.verified)).toBe(true);
      // the requests cut off by the kill were sent again, under the same id
      for (const id of cutOff) expect(rx.received.filter((r) => String(r.headers['x-service-delivery']) === id).length, `delivery ${id}`).toBeGreaterThan(1);
    },
  );
});
