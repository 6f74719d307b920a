// Shared steps of the command outbox tests (docs/concepts.md#command-outbox): create commands over
// the real API, read their states and their `_deviceCommandUpdated_` events.
import { expect } from 'vitest';
import type { SeededDevice, TestHearth } from '../../helpers/hearth.js';

export async function enqueue(t: TestHearth, d: SeededDevice, body: Record<string, unknown>, token = t.adminKey): Promise<any> {
  const r = await t.http('POST', `/devices/${d.id}/commands`, { token, body });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body;
}

export async function stateOf(t: TestHearth, d: SeededDevice, id: string): Promise<string> {
  const r = await t.http('GET', `/devices/${d.id}/commands/${id}`, { token: t.adminKey });
  expect(r.status).toBe(200);
  return r.body.state;
}

/** `[id, state]` of every `_deviceCommandUpdated_` event of the device so far, oldest first */
export async function commandEvents(t: TestHearth, d: SeededDevice): Promise<[string, string][]> {
  const r = await t.deps.store.events.list({ projectId: d.projectId, deviceId: d.id, eventType: '_deviceCommandUpdated_' }, { skip: 0, limit: 1000 });
  return r.items.reverse().map((e) => [e.event.eventData.id as string, e.event.eventData.state as string]);
}
