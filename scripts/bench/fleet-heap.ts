// Heap snapshots of Hearth and of bare Aedes before and after N devices connect (issue #25: what
// Hearth keeps per connected device that bare Aedes does not, by owner). The servers are the
// fleet bench's (baselines/server.ts: the built Hearth, SQLite, every role; bare Aedes in its own
// process), the devices its generators' (CONNECT with the device's key, SUBSCRIBE to command and
// kv). Not one of `npm run bench`'s benches: a tool, run by hand. It then sets the two servers'
// growth side by side by owner (node type and constructor or closure name), bytes per device.
//   npm run build && npx tsx scripts/bench/fleet-heap.ts <dir> [devices=2000] [HEARTH_X=value ...]
// writes <dir>/{hearth,aedes}-{before,after}.heapsnapshot and prints each server's resident growth
// per device by kind of mapping (the settings given apply to Hearth: HEARTH_SQLITE_CACHE_BYTES...).
// A snapshot leaves V8's native buffers in the malloc arena (tens of KiB per device here): with
// <dir> `-` no snapshot is taken, and the resident figures are the storm's own
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { forkChild } from './baselines/brokers.js';
import { keyOf, startGenerators, until, waitMs } from './lib/fleet.js';

const snapshots = process.argv[2] !== '-';
const dir = resolve(process.argv[2] ?? 'fleet-heap');
const n = Number(process.argv[3] ?? 2000);
const env = Object.fromEntries(process.argv.slice(4).map((kv) => kv.split(/=(.*)/s).slice(0, 2)));
type Memory = { rss: number; heapUsed: number; mappings?: Record<string, number> };

for (const mode of ['hearth', 'aedes'] as const) {
  const server = await forkChild('./server.ts', [], ['--expose-gc', '--max-old-space-size=4096']);
  const gens = await startGenerators(4, 100);
  try {
    const keys = Array.from({ length: n }, (_, i) => keyOf(i));
    const { port } = await server.request<{ port: number }>(
      mode === 'hearth'
        ? { type: 'start', mode, keys, env: { HEARTH_LIMITS_UNAUTHENTICATED_SOCKETS_PER_ADDRESS: String(n), ...env } }
        : { type: 'start', mode },
      'started',
      600_000,
    );
    const clients = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        ...(mode === 'hearth' ? { username: String(i + 1), password: keyOf(i) } : {}),
        clientId: `fleet-${i}`,
        deviceId: i + 1,
        port: 0,
      }));
    // the bench's warm-up: what a server does once lands before the first snapshot
    await gens.connect([port], clients(Math.min(100, Math.max(1, Math.floor(n / 100)))), false);
    await gens.drop();
    await until(async () => ({ done: (await gens.status()).up === 0, now: 'warm-up' }), 'warm-up closed');
    const m0 = await server.request<Memory>({ type: 'measure' }, 'memory');
    if (snapshots) await server.request({ type: 'snapshot', file: resolve(dir, `${mode}-before.heapsnapshot`) }, 'snapshotted', 600_000);
    await gens.connect([port], clients(n), false, waitMs(n));
    const m = await server.request<Memory>({ type: 'measure' }, 'memory');
    if (snapshots) await server.request({ type: 'snapshot', file: resolve(dir, `${mode}-after.heapsnapshot`) }, 'snapshotted', 600_000);
    const per = (a: number, b: number) => ((b - a) / n / 1024).toFixed(2);
    const maps = Object.keys(m.mappings ?? {})
      .map((k) => `${k} ${per(m0.mappings![k] ?? 0, m.mappings![k])}`)
      .join(', ');
    console.log(
      `${mode}: ${n} devices up; per device KiB: rss ${per(m0.rss, m.rss)}, heap used ${per(m0.heapUsed, m.heapUsed)}; by mapping ${maps}; ${snapshots ? `snapshots in ${dir}` : 'no snapshots'}`,
    );
  } finally {
    await gens.close();
    await server.close();
  }
}

if (snapshots) {
  const growth = (mode: string) => {
    const [a, b] = ['before', 'after'].map((when) => byOwner(resolve(dir, `${mode}-${when}.heapsnapshot`)));
    const out = new Map<string, { bytes: number; count: number }>();
    for (const k of new Set([...a.keys(), ...b.keys()]))
      out.set(k, { bytes: (b.get(k)?.bytes ?? 0) - (a.get(k)?.bytes ?? 0), count: (b.get(k)?.count ?? 0) - (a.get(k)?.count ?? 0) });
    return out;
  };
  const h = growth('hearth');
  const a = growth('aedes');
  const sum = (g: Map<string, { bytes: number }>) => [...g.values()].reduce((x, v) => x + v.bytes, 0) / n;
  console.log(`live objects grown per device: hearth ${sum(h).toFixed(0)} B, bare aedes ${sum(a).toFixed(0)} B; by owner, largest differences first:`);
  console.log(
    `${'diff B'.padStart(7)} ${'hearth'.padStart(7)} ${'aedes'.padStart(7)} ${'h n'.padStart(5)} ${'a n'.padStart(5)}  owner (bytes and objects per device)`,
  );
  const zero = { bytes: 0, count: 0 };
  const keys = [...new Set([...h.keys(), ...a.keys()])].sort(
    (x, y) => Math.abs((h.get(y) ?? zero).bytes - (a.get(y) ?? zero).bytes) - Math.abs((h.get(x) ?? zero).bytes - (a.get(x) ?? zero).bytes),
  );
  for (const k of keys.slice(0, 40)) {
    const [x, y] = [h.get(k) ?? zero, a.get(k) ?? zero];
    const f = (v: number, d = 0) => (v / n).toFixed(d);
    console.log(
      `${f(x.bytes - y.bytes).padStart(7)} ${f(x.bytes).padStart(7)} ${f(y.bytes).padStart(7)} ${f(x.count, 2).padStart(5)} ${f(y.count, 2).padStart(5)}  ${k}`,
    );
  }
}

/** a snapshot's objects by owner: node type and constructor (strings, numbers and code by kind only: their names are their contents) */
function byOwner(file: string): Map<string, { bytes: number; count: number }> {
  const s = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const { node_fields: fields, node_types: types } = s.snapshot.meta;
  const [ti, ni, si] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byKind = new Set(['string', 'concatenated string', 'sliced string', 'number', 'hidden', 'code']);
  const out = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[0][s.nodes[i + ti]];
    const key = byKind.has(type) ? type : `${type} ${s.strings[s.nodes[i + ni]].slice(0, 60)}`;
    const o = out.get(key) ?? { bytes: 0, count: 0 };
    o.bytes += s.nodes[i + si];
    o.count++;
    out.set(key, o);
  }
  return out;
}
