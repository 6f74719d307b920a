// The process's own metrics on /metrics (docs/operations.md#health-and-metrics): prom-client's
// defaults, but the five whose count walks every handle, resource and open file are counted at
// most once every walkEveryMs (src/http/metrics.ts), so a scrape costs the same at any fleet size.
// Real sockets on loopback: a count must see them, or not yet.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createHttpMetrics } from '../../../src/http/metrics.js';

const WALKING = ['process_open_fds', 'nodejs_active_handles', 'nodejs_active_handles_total', 'nodejs_active_resources', 'nodejs_active_resources_total'];

/** the value of an unlabelled series (or of one with the given labels) in a /metrics text */
function valueOf(text: string, series: string): number {
  const escaped = series.replace(/[{}"=]/g, (c) => `\\${c}`);
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`${series} is not in the text`);
  return Number(m[1]);
}

describe('process metrics that walk every handle', () => {
  let server: Server;
  let port: number;
  const sockets: Socket[] = [];
  // the server's ends: a client's connect callback can come before the server has accepted it
  const accepted: Socket[] = [];
  let onAccept = () => {};
  /** n connections open at both ends: 2n more sockets in this process */
  const openSockets = async (n: number) => {
    const target = accepted.length + n;
    const allAccepted = new Promise<void>((resolve) => {
      onAccept = () => accepted.length >= target && resolve();
    });
    await Promise.all(
      Array.from(
        { length: n },
        () =>
          new Promise<void>((resolve, reject) => {
            const s = connect(port, '127.0.0.1', () => resolve());
            s.on('error', reject);
            sockets.push(s);
          }),
      ),
    );
    await allAccepted;
  };

  beforeAll(async () => {
    server = createServer((s) => {
      accepted.push(s);
      onAccept();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of [...sockets, ...accepted]) s.destroy();
    await new Promise((r) => server.close(r));
  });

  it("keep prom-client's names, types, help and labels", async () => {
    const plain = new Registry();
    collectDefaultMetrics({ register: plain, prefix: 'hearth_' });
    const ours = createHttpMetrics(new Registry(), { defaults: true }).registry;
    const head = (text: string, name: string) =>
      text.split('\n').filter((l) => l.startsWith(`# HELP hearth_${name} `) || l.startsWith(`# TYPE hearth_${name} `));
    const [a, b] = [await plain.metrics(), await ours.metrics()];
    const names = (text: string) => [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]).filter((n) => !n.startsWith('hearth_http_'));
    expect(names(b).sort()).toEqual(names(a).sort());
    for (const name of WALKING) {
      expect(head(b, name)).toHaveLength(2);
      expect(head(b, name)).toEqual(head(a, name));
    }
    // labelled by type, as prom-client labels them: the server above is a TCP handle
    expect(valueOf(b, 'hearth_nodejs_active_handles{type="Server"}')).toBeGreaterThanOrEqual(1);
    expect(valueOf(b, 'hearth_nodejs_active_resources{type="TCPServerWrap"}')).toBeGreaterThanOrEqual(1);
  });

  it('count again only once walkEveryMs has passed since the last count', async () => {
    const fresh = createHttpMetrics(new Registry(), { defaults: true, walkEveryMs: 0 }).registry;
    const cached = createHttpMetrics(new Registry(), { defaults: true, walkEveryMs: 3_600_000 }).registry;
    const before = { fresh: await fresh.metrics(), cached: await cached.metrics() };
    await openSockets(40);
    const after = { fresh: await fresh.metrics(), cached: await cached.metrics() };
    // the positive control: counted at every scrape, the 40 client sockets show. The server's 40 ends,
    // accepted before this scrape, are the margin for what was open at the first scrape and is no
    // longer (a timer, a transient socket of the test runner): with the client ends alone, once,
    // on a loaded machine, the count rose by 39
    for (const series of ['hearth_process_open_fds', 'hearth_nodejs_active_handles_total', 'hearth_nodejs_active_resources_total'])
      expect(valueOf(after.fresh, series) - valueOf(before.fresh, series), series).toBeGreaterThanOrEqual(40);
    // within the hour: the first count stands
    for (const series of ['hearth_process_open_fds', 'hearth_nodejs_active_handles_total', 'hearth_nodejs_active_resources_total'])
      expect(valueOf(after.cached, series), series).toBe(valueOf(before.cached, series));
  });
});
