// Issue 13 item 5 (docs/devices.md#mqtt): a user's live event stream closes when its session ends: logout
// (DELETE /userSession), the user deleted (DELETE /users/{id}), and the session's expiry (a timer
// per stream; no event needs to arrive for it to close). Each waits for the close event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../src/domain/auth/tokens.js';
import { startTestHearth, type TestHearth } from '../../helpers/hearth.js';
import { wsConnect } from './clients.js';
import { generateToken } from '../../helpers/credentials.js';

let t: TestHearth;
let home: number;
beforeAll(async () => {
  t = await startTestHearth();
  home = await t.seedHome();
});
afterAll(() => t?.close());

const stream = (token: string) => wsConnect(t, `/userSession/websocket?authToken=${encodeURIComponent(token)}`);

describe('a user stream closes when its session ends', () => {
  it('at logout (DELETE /userSession); a stream of another session of the same user stays', async () => {
    const u = await t.seedUser({ homeIds: [home] });
    const other = generateToken('ut.');
    const now = new Date();
    await t.deps.store.sessions.create({
      tokenHash: hashToken(other),
      userId: u.userId,
      projectId: 1,
      creationTime: now.toISOString(),
      expirationTime: new Date(now.getTime() + 3600_000).toISOString(),
    });
    const peer = await stream(u.token);
    const stays = await stream(other);
    expect((await t.http('DELETE', '/userSession', { token: u.token })).status).toBe(204);
    expect((await peer.closed).code).toBe(1008);
    // positive control for the one that stays: it still gets events
    const d = await t.seedDevice({ homeId: home });
    await t.http('PUT', `/devices/${d.id}/event`, { token: d.key, body: { eventType: 'stillHere', eventData: {} } });
    expect((await stays.next()).eventType).toBe('stillHere');
  });

  it('when the user is deleted (DELETE /users/{id})', async () => {
    const u = await t.seedUser({ homeIds: [home] });
    const peer = await stream(u.token);
    expect((await t.http('DELETE', `/users/${u.userId}`, { token: t.adminKey })).status).toBe(204);
    expect((await peer.closed).code).toBe(1008);
  });

  it('when the session expires, with no event arriving', async () => {
    const u = await t.seedUser({ homeIds: [home] });
    const token = generateToken('ut.');
    const now = new Date();
    await t.deps.store.sessions.create({
      tokenHash: hashToken(token),
      userId: u.userId,
      projectId: 1,
      creationTime: now.toISOString(),
      expirationTime: new Date(now.getTime() + 1500).toISOString(),
    });
    const peer = await stream(token);
    const closed = await peer.closed;
    expect(closed).toEqual({ code: 1008, reason: 'session expired' });
  });
});
