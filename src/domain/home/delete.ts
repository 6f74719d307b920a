// Delete a home (owner or project key): its devices leave it (they stay in the project, homeless;
// every way into a home closed their claim window), its KV store and its memberships go.
import type { Deps, HomeRef, StoreOf, VerbArgs } from '../deps.js';
import { homeFor } from '../auth/access.js';
import { writeLog } from '../log/write.js';

const CHUNK = 500;

export async function deleteHome({
  deps,
  caller,
  input: { homeId },
}: VerbArgs<Pick<Deps, 'clock'> & StoreOf<'homes' | 'logs' | 'members' | 'transaction'>, HomeRef>): Promise<void> {
  const h = await homeFor(deps, caller, homeId, ['project key', 'owner']);
  const moved = await deps.store.transaction(async (store) => {
    let n = 0;
    // each pass removes the devices it saw from the home, so the next pass starts again at 0
    for (;;) {
      const { items } = await store.devices.list({ projectId: h.projectId, homeId: h.id }, { skip: 0, limit: CHUNK });
      for (const d of items) await store.devices.update(d.id, { homeId: null });
      n += items.length;
      if (items.length < CHUNK) break;
    }
    await store.kv.drop('home', h.id);
    await store.homes.delete(h.id);
    return n;
  });
  await writeLog({ deps, input: { projectId: h.projectId, caller, level: 'info', source: 'api', text: `home ${h.id} deleted; ${moved} device(s) left it` } });
}
