// Stream tickets (docs/api.md#stream-tickets): a browser trades its credential, sent in a header, for a
// single-use ticket valid seconds, and opens its WebSocket with `?ticket=` instead of the credential.
// The ticket stands for that credential only: once used, expired, or after the credential ends, it
// opens nothing; the socket it opens acts as the credential and closes when it ends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { eventually, wsConnect } from './clients.js';
import { generateToken } from '../../helpers/credentials.js';

let t: TestHearth;
let homeId: number;
beforeAll(async () => {
  t = await startTestHearth();
  homeId = await t.seedHome();
});
afterAll(() => t?.close());

async function ticketOf(token: string): Promise<string> {
  const r = await t.http('POST', '/auth/ticket', { token });
  expect(r.status).toBe(201);
  expect(r.body.ticket).toMatch(/^wt\./);
  expect(Date.parse(r.body.expirationTime)).toBeGreaterThan(Date.now());
  return r.body.ticket;
}
const q = (ticket: string) => `ticket=${encodeURIComponent(ticket)}`;
const invalid = { status: 401, body: { reason: 'INVALID_TOKEN' } };

describe('issuing', () => {
  it('needs a credential in the Authorization header', async () => {
    expect(await t.http('POST', '/auth/ticket')).toMatchObject({ status: 401, body: { reason: 'AUTHORIZATION_REQUIRED' } });
    expect(await t.http('POST', '/auth/ticket', { token: 'ut.unknown' })).toMatchObject({ status: 401, body: { reason: 'INVALID_TOKEN' } });
  });

  it('a ticket is no credential for the REST API or for another ticket', async () => {
    const ticket = await ticketOf(t.adminKey);
    expect(await t.http('POST', '/auth/ticket', { token: ticket })).toMatchObject({ status: 401, body: { reason: 'INVALID_TOKEN' } });
    expect((await t.http('GET', '/devices?projectId=1', { token: ticket })).status).toBe(401);
  });
});

describe('the user event stream', () => {
  it('opens with a user token ticket and delivers the events of its homes', async () => {
    const u = await t.seedUser({ homeIds: [homeId] });
    const d = await t.seedDevice({ homeId });
    const peer = await wsConnect(t, `/userSession/websocket?${q(await ticketOf(u.token))}`);
    expect((await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'viaTicket', eventData: {} } })).status).toBe(204);
    expect(await peer.next()).toMatchObject({ eventType: 'viaTicket', homeId });
  });

  it('refuses a ticket used once already', async () => {
    const u = await t.seedUser({ homeIds: [homeId] });
    const ticket = await ticketOf(u.token);
    await wsConnect(t, `/userSession/websocket?${q(ticket)}`);
    await expect(wsConnect(t, `/userSession/websocket?${q(ticket)}`)).rejects.toMatchObject(invalid);
  });

  it('refuses an expired ticket', async () => {
    const u = await t.seedUser({ homeIds: [homeId] });
    const ticket = generateToken('wt.');
    const past = new Date(Date.now() - 1000).toISOString();
    await t.deps.store.streamTickets.create({ ticketHash: hashToken(ticket), credentialKind: 'ut.', credentialHash: u.tokenHash, expirationTime: past }, past);
    await expect(wsConnect(t, `/userSession/websocket?${q(ticket)}`)).rejects.toMatchObject(invalid);
  });

  it('refuses unknown and malformed tickets', async () => {
    await expect(wsConnect(t, `/userSession/websocket?${q(generateToken('wt.'))}`)).rejects.toMatchObject(invalid);
    await expect(wsConnect(t, `/userSession/websocket?${q('ut.not-a-ticket')}`)).rejects.toMatchObject(invalid);
  });

  it("refuses a device key's ticket (the stream is for users and project keys)", async () => {
    const d = await t.seedDevice({ homeId });
    await expect(wsConnect(t, `/userSession/websocket?${q(await ticketOf(d.key))}`)).rejects.toMatchObject({
      status: 403,
      body: { reason: 'PERMISSION_DENIED' },
    });
  });

  it('refuses the ticket of a session that ended after it was issued', async () => {
    const u = await t.seedUser({ homeIds: [homeId] });
    const ticket = await ticketOf(u.token);
    expect((await t.http('DELETE', '/userSession', { token: u.token })).status).toBe(204);
    await expect(wsConnect(t, `/userSession/websocket?${q(ticket)}`)).rejects.toMatchObject(invalid);
  });

  it('the stream a ticket opened closes when its session ends', async () => {
    const u = await t.seedUser({ homeIds: [homeId] });
    const peer = await wsConnect(t, `/userSession/websocket?${q(await ticketOf(u.token))}`);
    expect((await t.http('DELETE', '/userSession', { token: u.token })).status).toBe(204);
    expect((await peer.closed).code).toBe(1008);
  });

  it('refuses the ticket of a project key revoked after it was issued, and closes the stream it opened', async () => {
    const k = await t.seedProjectKey(['events']);
    const open = await wsConnect(t, `/userSession/websocket?${q(await ticketOf(k.key))}`);
    const later = await ticketOf(k.key);
    expect((await t.http('DELETE', `/projects/1/apiKeys/${k.id}`, { token: t.adminKey })).status).toBe(204);
    expect((await open.closed).code).toBe(1008);
    await expect(wsConnect(t, `/userSession/websocket?${q(later)}`)).rejects.toMatchObject(invalid);
  });
});

describe('the KV and command sockets of a device', () => {
  it("open with the device key's ticket", async () => {
    const d = await t.seedDevice({ homeId });
    const kv = await wsConnect(t, `/devices/${d.id}/kv?${q(await ticketOf(d.key))}`);
    expect((await kv.next()).action).toBe('reload');
    await wsConnect(t, `/devices/${d.id}/command?${q(await ticketOf(d.key))}`);
  });

  it("open the KV socket with a member's and a project key's ticket", async () => {
    const d = await t.seedDevice({ homeId });
    const u = await t.seedUser({ homeIds: [homeId] });
    expect((await (await wsConnect(t, `/devices/${d.id}/kv?${q(await ticketOf(u.token))}`)).next()).action).toBe('reload');
    expect((await (await wsConnect(t, `/devices/${d.id}/kv?${q(await ticketOf(t.adminKey))}`)).next()).action).toBe('reload');
  });

  it("refuse another device's ticket as not found, and a used one", async () => {
    const d = await t.seedDevice({ homeId });
    const other = await t.seedDevice({ homeId });
    await expect(wsConnect(t, `/devices/${d.id}/kv?${q(await ticketOf(other.key))}`)).rejects.toMatchObject({
      status: 403,
      body: { reason: 'DEVICE_NOT_FOUND' },
    });
    await expect(wsConnect(t, `/devices/${d.id}/command?${q(await ticketOf(other.key))}`)).rejects.toMatchObject({
      status: 404,
      body: { reason: 'DEVICE_NOT_FOUND' },
    });
    const ticket = await ticketOf(d.key);
    await wsConnect(t, `/devices/${d.id}/kv?${q(ticket)}`);
    await expect(wsConnect(t, `/devices/${d.id}/kv?${q(ticket)}`)).rejects.toMatchObject(invalid);
  });

  it('refuse the ticket of a deleted device, and close the KV socket a ticket opened when the device goes', async () => {
    const d = await t.seedDevice({ homeId });
    const open = await wsConnect(t, `/devices/${d.id}/kv?${q(await ticketOf(d.key))}`);
    expect((await open.next()).action).toBe('reload');
    const later = await ticketOf(d.key);
    expect((await t.http('DELETE', `/devices/${d.id}`, { token: t.adminKey })).status).toBe(204);
    expect((await open.closed).code).toBe(1008);
    await expect(wsConnect(t, `/devices/${d.id}/kv?${q(later)}`)).rejects.toMatchObject(invalid);
  });

  it('the access log records the path without the ticket', async () => {
    const d = await t.seedDevice({ homeId });
    const ticket = await ticketOf(d.key);
    await wsConnect(t, `/devices/${d.id}/kv?${q(ticket)}`);
    await eventually(async () => {
      const r = await t.deps.store.accessLogs.list({ projectId: 1, pathPrefix: `/devices/${d.id}/kv` }, { skip: 0, limit: 5 });
      return r.items.some((i) => i.statusCode === 101 && i.path === `/devices/${d.id}/kv`);
    });
    const rows = await t.deps.store.accessLogs.list({ projectId: 1 }, { skip: 0, limit: 10000 });
    expect(rows.items.some((r) => r.path.includes(ticket) || r.path.includes('ticket='))).toBe(false);
  });
});
