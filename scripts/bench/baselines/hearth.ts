// Hearth as the benches measure it: the built server in dist/ (scripts/build.mjs, what `npm start`
// runs), not its TypeScript through tsx. tsx transforms with esbuild's keepNames, which wraps
// every named function and closure in a __name(...) call: on the connect path alone that cost
// 7-10 µs and 2.5 KB of garbage per connect (issues #25/#26), a handicap users do not have and the
// bare baselines (plain JavaScript) do not carry. tsx leaves dist's .js as it is, and the worker
// threads of a built Hearth load their sibling .js (src/adapters/thread-boot.ts).
//
// dist/ is built here (server part only) when it is missing or older than a source; a lock file
// keeps two bench processes (or test files) from building into it at once. Types stay the
// sources' (`import type` from src/).
//
// It sits in baselines/, not lib/: lib imports baselines (brokers.ts...), and baselines/server.ts
// (the forked Hearth of connections, fleet and rollout) needs it too.
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { buildServer, sourcesUnder } from '../../build.mjs';

const ROOT = resolve(import.meta.dirname, '../../..');
const DIST = join(ROOT, 'dist');
/** what the benches print: which Hearth they measure */
export const MEASURED = 'built server (dist/)';
/** a build that holds the lock longer than this is taken for dead (its process killed) */
const STALE_LOCK_MS = 120_000;

/** the newest modification time of what the server build reads */
function newestSource(): number {
  const files = [...sourcesUnder('src'), ...sourcesUnder('broker'), join('config', 'default.json')];
  return Math.max(...files.map((f) => statSync(join(ROOT, f)).mtimeMs));
}

/** why dist/ must be (re)built, or undefined when it is current */
function outdated(): string | undefined {
  const main = join(DIST, 'src', 'main.js');
  if (!existsSync(main)) return 'dist/ has no server build';
  return statSync(main).mtimeMs < newestSource() ? 'a source is newer than dist/' : undefined;
}

let ready: Promise<void> | undefined;

/** builds dist/'s server part when it is missing or older than the sources (once a process) */
export function ensureBuilt(): Promise<void> {
  return (ready ??= (async () => {
    if (!outdated()) return;
    mkdirSync(DIST, { recursive: true });
    const lock = join(DIST, '.bench-build.lock');
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx'));
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_LOCK_MS) rmSync(lock, { force: true });
        else await sleep(200);
      }
    }
    try {
      // another process may have built it while this one waited
      const why = outdated();
      if (!why) return;
      const r = await buildServer(DIST);
      console.log(`  (${why}: built the server into dist/ in ${Math.round(r.ms)} ms)`);
    } finally {
      rmSync(lock, { force: true });
    }
  })().then(() => {
    // once, by the bench's own process (not by the children it forks)
    if (!process.send) console.log(`  Hearth measured: ${MEASURED}, ${DIST}`);
  }));
}

/** a module of the built server, e.g. loadBuilt<typeof import('../../../src/worker/index.js')>('src/worker/index') */
export async function loadBuilt<T>(module: string): Promise<T> {
  await ensureBuilt();
  return (await import(pathToFileURL(join(DIST, `${module}.js`)).href)) as T;
}

/** the built server's entry: startHearth as `npm start` runs it */
export const loadHearth = (): Promise<typeof import('../../../src/main.js')> => loadBuilt('src/main');

/** the command line of a Hearth node process running the built server (after ensureBuilt) */
export const hearthNodeArgs = (): string[] => [join(DIST, 'src', 'main.js')];
