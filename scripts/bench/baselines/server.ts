// A broker alone in its own process (forked with tsx and --expose-gc; the Hearth it starts is the built
// server in dist/, hearth.ts), for the connections bench:
// its resident memory is then the broker's and nothing else's. Driven over IPC:
//   {type:'start', mode:'hearth'|'aedes', keys?: string[], env?}  → {type:'started', port, httpPort, adminKey}
//   {type:'restart', env?}  Hearth stops and starts again on the same data directory and ports
//                           (the fleet bench's reconnect storm)        → {type:'started', ...}
//   {type:'measure'}                                        → {type:'memory', rss, heapUsed, ...}
//   {type:'profile', action:'start'}                        → {type:'profiling'}  (a CPU profile of this process, inspector)
//   {type:'profile', action:'stop', file}                   → {type:'profiled'}   (written to file as .cpuprofile, and
//                                                             the sampled allocations, garbage included, beside it as .heapprofile)
//   {type:'close'}
// `env`: settings on top of the bench's own (HEARTH_LIMITS_*...).
// Hearth runs as shipped (broker role, SQLite in a temp directory) with one device per key.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';
import { pino } from 'pino';
import { loadConfig } from '../../../src/config/load.js';
import { loadHearth } from './hearth.js';
import type { Hearth } from '../../../src/main.js';
import { seedDevices, startBareAedes, type RunningBroker } from './brokers.js';

// Hearth as users run it: the built server (baselines/hearth.ts)
const { startHearth } = await loadHearth();

type Env = Record<string, string>;
type Msg =
  | { type: 'start'; mode: 'hearth' | 'aedes'; keys?: string[]; env?: Env }
  | { type: 'restart'; env?: Env }
  | { type: 'measure' }
  | { type: 'profile'; action: 'start' | 'stop'; file?: string }
  | { type: 'close' };

const send = (m: unknown): void => void process.send!(m);
let hearth: Hearth | undefined;
let aedes: RunningBroker | undefined;
let dataDir: string | undefined;
let adminKey: string | undefined;

async function startHearthHere(env: Env = {}, ports: { http: number; mqtt: number } = { http: 0, mqtt: 0 }): Promise<Hearth> {
  const config = loadConfig({
    HEARTH_DATA_DIR: dataDir!,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_HTTP_PORT: String(ports.http),
    HEARTH_MQTT_PORT: String(ports.mqtt),
    HEARTH_ROLES: 'broker,api,worker',
    HEARTH_LOG_LEVEL: 'warn',
    ...env,
  });
  const h = await startHearth(config, pino({ level: 'warn' }));
  adminKey ??= h.adminKey;
  return h;
}

async function start(m: Extract<Msg, { type: 'start' }>): Promise<void> {
  if (m.mode === 'aedes') {
    aedes = await startBareAedes();
    send({ type: 'started', port: aedes.port });
    return;
  }
  dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-conn-'));
  hearth = await startHearthHere(m.env);
  const keys = m.keys ?? [];
  await seedDevices(hearth, keys.length, { keyOf: (i) => keys[i] });
  send({ type: 'started', port: hearth.mqttPort, httpPort: hearth.httpPort, adminKey });
}

async function restart(m: Extract<Msg, { type: 'restart' }>): Promise<void> {
  const ports = { http: hearth!.httpPort, mqtt: hearth!.mqttPort };
  await hearth!.close();
  hearth = await startHearthHere(m.env, ports);
  send({ type: 'started', port: hearth.mqttPort, httpPort: hearth.httpPort, adminKey });
}

async function measure(): Promise<void> {
  // let pending writes finish, then collect a few times with idle pauses between, so what is
  // left is what is held and V8 has had the chance to give back what it no longer needs
  for (let i = 0; i < 8; i++) {
    await new Promise((r) => setTimeout(r, 750));
    (globalThis as { gc?: () => void }).gc?.();
  }
  const m = process.memoryUsage();
  const spaces = getHeapSpaceStatistics();
  send({
    /** V8's young generation as it stands (semi-spaces grown by a storm stay grown until V8 shrinks them) */
    newSpace: spaces.find((x) => x.space_name === 'new_space')?.space_size,
    type: 'memory',
    rss: m.rss,
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
    connections: hearth?.broker?.connectionCount,
  });
}

let session: Session | undefined;

async function profile(m: Extract<Msg, { type: 'profile' }>): Promise<void> {
  if (m.action === 'start') {
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
    // and where it allocates, garbage included (what the young generation and the GC threads work on)
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    send({ type: 'profiling' });
    return;
  }
  const { profile } = await session!.post('Profiler.stop');
  const { profile: heap } = await session!.post('HeapProfiler.stopSampling');
  session!.disconnect();
  session = undefined;
  mkdirSync(dirname(m.file!), { recursive: true });
  writeFileSync(m.file!, JSON.stringify(profile));
  writeFileSync(m.file!.replace(/\.cpuprofile$/, '') + '.heapprofile', JSON.stringify(heap));
  send({ type: 'profiled' });
}

process.on('message', (m: Msg) => {
  const fail = (e: unknown) => send({ type: 'error', message: (e as Error).stack ?? String(e) });
  switch (m.type) {
    case 'start':
      start(m).catch(fail);
      break;
    case 'restart':
      restart(m).catch(fail);
      break;
    case 'measure':
      measure().catch(fail);
      break;
    case 'profile':
      profile(m).catch(fail);
      break;
    case 'close':
      Promise.resolve()
        .then(() => hearth?.close())
        .then(() => aedes?.close())
        .finally(() => {
          if (dataDir) rmSync(dataDir, { recursive: true, force: true });
          process.exit(0);
        });
      break;
  }
});
// the bench went away (a crash, Ctrl-C): no orphaned server
process.on('disconnect', () => process.exit(0));
send({ type: 'up' });
