// The house rules of docs/architecture.md ("Floors and imports", "House rules"), as pure
// functions over an ImportGraph and each file's SourceFacts, so test/architecture.test.ts can run
// them on the real sources and on a small fixture that breaks each rule once (a checker that
// reports nothing proves nothing).
import type { ImportGraph, SourceFacts } from './import-graph.js';

export type Layer = 'scripts' | 'root' | 'broker' | 'http' | 'worker' | 'adapters' | 'protocol' | 'domain' | 'ports' | 'console';

export type Rule =
  | 'unclassified-file'
  | 'unresolved-import'
  | 'outward-import'
  | 'edge-imports-edge'
  | 'console-leaves-console'
  | 'domain-package'
  | 'ports-package'
  | 'edge-package'
  | 'adapter-package'
  | 'adapter-throws-app-error'
  | 'env-outside-config'
  | 'domain-module-state'
  | 'cycle'
  | 'upward-in-folder';

export interface Violation {
  file: string;
  /** The import as written; for a cycle, the cycle's files, sorted, joined by ', '. */
  specifier: string;
  rule: Rule;
  message: string;
}

const EDGES: readonly Layer[] = ['broker', 'http', 'worker'];

/**
 * The composition root is main.ts plus the folders only it uses: roles/ (starting each role), config/ (reading the
 * file and the environment is main's job alone) and listeners/ (opening ports: "only main.ts
 * listens"). They import edges' helpers, so they sit outside the edge ring with main.
 */
export function layerOf(file: string): Layer | undefined {
  if (file === 'src/main.ts' || file.startsWith('src/config/') || file.startsWith('src/listeners/') || file.startsWith('src/roles/')) return 'root';
  if (file.startsWith('broker/')) return 'broker';
  // the tools (admin CLI, simulator, benchmarks, build): outside the server, each its own entry point
  if (file.startsWith('scripts/')) return 'scripts';
  const m = /^src\/(http|worker|adapters|protocol|domain|ports|console)\//.exec(file);
  return m ? (m[1] as Layer) : undefined;
}

/** Which layers each layer may import from (its own included). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  scripts: ['scripts', 'root', 'broker', 'http', 'worker', 'adapters', 'protocol', 'domain', 'ports'],
  root: ['root', 'broker', 'http', 'worker', 'adapters', 'protocol', 'domain', 'ports'],
  broker: ['broker', 'protocol', 'domain', 'ports'],
  http: ['http', 'protocol', 'domain', 'ports'],
  worker: ['worker', 'protocol', 'domain', 'ports'],
  // adapters are handed to the edges through Deps; neither side imports the other
  adapters: ['adapters', 'domain', 'ports'],
  // what two edges share about the wire (HTTP statuses, the MQTT topic table): below the edges,
  // above the domain, whose reasons and schemas it maps
  protocol: ['protocol', 'domain', 'ports'],
  domain: ['domain', 'ports'],
  ports: ['ports'],
  // browser code: talks to the public API only
  console: ['console'],
};

/**
 * Packages the domain may import, each for a reason: the domain stays pure logic, so only
 * libraries that compute (no I/O, no framework) qualify.
 */
export const DOMAIN_PACKAGES: Readonly<Record<string, string>> = {
  valibot: 'schemas: docs/architecture.md rule 3',
  croner: 'cron parsing for report schedules (domain/report/schedule.ts): rule 11',
  'ipaddr.js': 'address classes for the webhook target policy (domain/webhook/target-policy.ts): rule 11',
};

/**
 * Node built-ins that do I/O (sockets, files, processes, threads): the domain reaches them only
 * through ports.
 */
const DOMAIN_FORBIDDEN_BUILTINS: ReadonlySet<string> = new Set([
  'net',
  'tls',
  'http',
  'https',
  'http2',
  'dgram',
  'dns',
  'fs',
  'child_process',
  'worker_threads',
]);

/** SQL and Redis clients: the edges reach records and the bus through the ports in Deps. */
export const STORAGE_CLIENTS: readonly string[] = ['kysely', 'better-sqlite3', 'pg', 'ioredis', 'mqemitter-redis', 'aedes-persistence-redis'];

/** Frameworks of the edges: an adapter implements a port and knows no HTTP framework or MQTT broker. */
export const EDGE_FRAMEWORKS: readonly string[] = ['hono', '@hono/node-server', 'aedes'];

/**
 * Where process.env may be read: the configuration (src/config/ parses it, main.ts hands it
 * over) and the tools under scripts/, which are entry points of their own, not the server.
 */
export function mayReadEnv(file: string): boolean {
  return file === 'src/main.ts' || file.startsWith('src/config/') || file.startsWith('scripts/');
}

export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function builtinName(specifier: string): string | undefined {
  return specifier.startsWith('node:') ? specifier.slice(5).split('/')[0] : undefined;
}

export function checkImports(graph: ImportGraph): Violation[] {
  const out: Violation[] = [];
  const report = (file: string, specifier: string, rule: Rule, why: string): void => {
    out.push({ file, specifier, rule, message: `${file}: import '${specifier}' breaks ${rule}: ${why}` });
  };
  for (const [file, refs] of graph) {
    const from = layerOf(file);
    if (!from) {
      report(file, '', 'unclassified-file', 'the file is in no layer; place it or add its folder to layerOf');
      continue;
    }
    for (const { specifier, target, typeOnly } of refs) {
      if (target === undefined) {
        checkPackage(file, from, specifier, report);
        continue;
      }
      if (target.startsWith('?')) {
        report(file, specifier, 'unresolved-import', 'no such source file');
        continue;
      }
      const to = layerOf(target);
      if (!to) {
        report(file, specifier, 'outward-import', `${target} is outside every layer`);
        continue;
      }
      if (from === 'console' || to === 'console') {
        // the console may name the ports' types (the API's shapes, one source per fact): `import type`
        // is erased from its bundle, so no server code reaches the browser (scripts/build-console.ts checks)
        const portTypes = from === 'console' && to === 'ports' && typeOnly;
        if (from !== to && !portTypes)
          report(
            file,
            specifier,
            'console-leaves-console',
            "src/console imports nothing outside it but the ports' types (import type), and nothing imports it",
          );
      } else if (EDGES.includes(from) && EDGES.includes(to) && from !== to) {
        report(file, specifier, 'edge-imports-edge', `edge ${from} imports edge ${to}; move what both use below them`);
      } else if (!MAY_IMPORT[from].includes(to)) {
        report(file, specifier, 'outward-import', `${from} may import only ${MAY_IMPORT[from].join(', ')}, not ${to}`);
      }
      if (from === 'adapters' && target === 'src/domain/errors.ts') {
        report(file, specifier, 'adapter-throws-app-error', 'an adapter reports with its own error or a return value; the domain picks the reason');
      }
    }
  }
  return out;
}

function checkPackage(file: string, from: Layer, specifier: string, report: (f: string, s: string, r: Rule, why: string) => void): void {
  const builtin = builtinName(specifier);
  if (from === 'domain') {
    if (builtin !== undefined) {
      if (DOMAIN_FORBIDDEN_BUILTINS.has(builtin)) report(file, specifier, 'domain-package', 'the domain does no network I/O; go through a port');
    } else if (!(packageOf(specifier) in DOMAIN_PACKAGES)) {
      report(file, specifier, 'domain-package', `the domain imports only ${Object.keys(DOMAIN_PACKAGES).join(', ')} and node: built-ins`);
    }
  } else if (from === 'ports' && builtin === undefined) {
    report(file, specifier, 'ports-package', 'ports are interfaces: they import only ports and node: built-ins');
  } else if (EDGES.includes(from) && STORAGE_CLIENTS.includes(packageOf(specifier))) {
    report(file, specifier, 'edge-package', 'an edge reaches records and the bus through the ports in Deps, never a SQL or Redis client');
  } else if (from === 'adapters' && EDGE_FRAMEWORKS.includes(packageOf(specifier))) {
    report(file, specifier, 'adapter-package', 'an adapter implements a port; the HTTP framework and the MQTT broker belong to the edges');
  }
}

/** The rules about what a file does rather than what it imports: environment reads, module-level state. */
export function checkFacts(facts: ReadonlyMap<string, SourceFacts>): Violation[] {
  const out: Violation[] = [];
  for (const [file, f] of facts) {
    if (f.envReads.length > 0 && !mayReadEnv(file)) {
      const lines = f.envReads.join(', ');
      out.push({
        file,
        specifier: 'process.env',
        rule: 'env-outside-config',
        message: `${file}: reads process.env (line ${lines}) and breaks env-outside-config: only src/config/ and main.ts read the environment; take a typed slice of Config`,
      });
    }
    if (layerOf(file) !== 'domain') continue;
    for (const state of f.moduleState) {
      out.push({
        file,
        specifier: state,
        rule: 'domain-module-state',
        message: `${file}: '${state}' breaks domain-module-state: process-wide state is an object main.ts builds and passes in Deps`,
      });
    }
  }
  return out;
}

/** Each import cycle, as a strongly connected component of two or more files (or a self-import). */
export function findCycles(graph: ImportGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    let selfImport = false;
    for (const { target: w } of graph.get(v) ?? []) {
      if (w === undefined || !graph.has(w)) continue;
      if (w === v) selfImport = true;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || selfImport) cycles.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return cycles;
}

export function cycleViolations(graph: ImportGraph): Violation[] {
  return findCycles(graph).map((files) => ({
    file: files[0],
    specifier: files.join(', '),
    rule: 'cycle' as const,
    message: `${files[0]}: breaks cycle: an import cycle among ${files.length} files: ${files.join(', ')}`,
  }));
}

/**
 * Inside a folder, its entries (sub-folders and files) stand on floors of their own: an import
 * from one entry to another points down, so no two entries reach each other, directly or around
 * a ring. Each such ring of entries (a strongly connected component of the folder's entry graph)
 * is one break, named by the folder and its entries; the message lists the file imports that make
 * it. The repository's top level and src/ itself are floors already, ordered by MAY_IMPORT above.
 */
export function upwardInFolderViolations(graph: ImportGraph): Violation[] {
  // folder -> entry -> entry -> the file imports behind that arrow
  const arrows = new Map<string, Map<string, Map<string, string[]>>>();
  for (const [file, refs] of graph) {
    for (const { target } of refs) {
      if (target === undefined || target.startsWith('?')) continue;
      const a = file.split('/');
      const b = target.split('/');
      let depth = 0;
      while (depth < a.length - 1 && depth < b.length - 1 && a[depth] === b[depth]) depth++;
      if (depth === 0 || a[depth] === b[depth]) continue;
      const folder = a.slice(0, depth).join('/');
      if (folder === 'src') continue;
      const byEntry = arrows.get(folder) ?? new Map<string, Map<string, string[]>>();
      arrows.set(folder, byEntry);
      const to = byEntry.get(a[depth]) ?? new Map<string, string[]>();
      byEntry.set(a[depth], to);
      to.set(b[depth], [...(to.get(b[depth]) ?? []), `${file} -> ${target}`]);
    }
  }
  const out: Violation[] = [];
  for (const [folder, byEntry] of [...arrows].sort(([x], [y]) => x.localeCompare(y))) {
    const entryGraph: ImportGraph = new Map([...byEntry].map(([from, to]) => [from, [...to.keys()].map((t) => ({ specifier: t, target: t }))]));
    for (const t of [...byEntry.values()].flatMap((to) => [...to.keys()])) if (!entryGraph.has(t)) entryGraph.set(t, []);
    for (const ring of findCycles(entryGraph)) {
      const imports = ring.flatMap((from) => ring.flatMap((to) => byEntry.get(from)?.get(to) ?? []));
      out.push({
        file: folder,
        specifier: ring.join(' <-> '),
        rule: 'upward-in-folder',
        message: `${folder}/: ${ring.join(', ')} import each other (breaks upward-in-folder: one of these points up; move what they share below them): ${imports.join('; ')}`,
      });
    }
  }
  return out;
}

export function allViolations(graph: ImportGraph, facts: ReadonlyMap<string, SourceFacts> = new Map()): Violation[] {
  return [...checkImports(graph), ...checkFacts(facts), ...cycleViolations(graph), ...upwardInFolderViolations(graph)];
}
