// The house rules of docs/architecture.md ("Floors and imports", "House rules"), enforced over
// every source file of src/, broker/ and scripts/: imports point inward, each floor imports only
// the packages it may, no two entries of a folder import each other (no upward arrow inside a
// folder), the environment is read only by the configuration, and the domain keeps no
// module-level state. The checkers live in test/helpers/import-rules.ts; the first block runs them
// on a fixture that breaks each rule, so this file cannot pass by checking nothing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildFacts, buildGraph, factsOf, specifiersOf, typeOnlySpecifiersOf, type ImportGraph } from './helpers/import-graph.js';
import { allViolations, type Rule, type Violation } from './helpers/import-rules.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface KnownBreak {
  file: string;
  specifier: string;
  rule: Rule;
  why: string;
}

/**
 * Breaks kept for a reason written beside each. The list may only shrink: a listed break that no
 * longer occurs fails the test, so whoever fixes one deletes its entry.
 */
const KNOWN_BREAKS: KnownBreak[] = [
  {
    file: 'src/domain/auth/session.ts',
    specifier: 'let decoy',
    rule: 'domain-module-state',
    why: 'a password hash computed once, so an unknown email costs a login as long as a wrong password: a constant computed late, that no caller sees and nothing changes after; in Deps it would be one more field for a fact that depends on no configuration',
  },
];

const keyOf = (v: Pick<Violation, 'file' | 'specifier' | 'rule'>): string => `${v.rule} | ${v.file} | ${v.specifier}`;

/** a fixture graph: `type:src/x.ts` is an `import type` of src/x.ts */
function graphOf(edges: Record<string, string[]>): ImportGraph {
  return new Map(
    Object.entries(edges).map(([file, targets]) => [
      file,
      targets.map((written) => {
        const t = written.replace(/^type:/, '');
        const typeOnly = written !== t ? { typeOnly: true } : {};
        return t.startsWith('src/') || t.startsWith('broker/') || t.startsWith('scripts/') || t.startsWith('lib/')
          ? { specifier: `./${t}`, target: t, ...typeOnly }
          : { specifier: t };
      }),
    ]),
  );
}

describe('the import checker', () => {
  it('finds static, type-only, re-export and literal dynamic imports, and nothing in comments or strings', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "// import { f } from './f.js';",
      'const g = "import { g } from \'./g.js\'";',
      'const h = await import(someVariable);',
    ].join('\n');
    expect(specifiersOf(text).sort()).toEqual(['../b.js', './a.js', './c.js', './d.js', './e.js']);
  });

  it('tells an import of types only from one that may bring code', () => {
    const text = [
      "import type { A } from './a.js';",
      "export type { B } from './b.js';",
      "import { type C } from './c.js';",
      "import type { D } from './d.js';",
      "import { d } from './d.js';",
    ].join('\n');
    expect([...typeOnlySpecifiersOf(text)].sort()).toEqual(['./a.js', './b.js']);
  });

  it('reports each kind of break in a fixture graph', () => {
    const fixture = graphOf({
      'src/main.ts': ['broker/index.ts', 'src/http/app.ts'],
      'broker/index.ts': ['src/http/errors.ts', 'src/domain/ok.ts', 'src/protocol/status.ts', 'aedes'],
      'src/http/app.ts': ['src/worker/index.ts', 'hono'],
      'src/http/errors.ts': [],
      'src/worker/index.ts': ['src/adapters/sql/kv.ts'],
      'src/adapters/sql/kv.ts': ['src/domain/errors.ts', 'src/ports/store.ts', 'kysely'],
      'src/domain/errors.ts': [],
      'src/domain/ok.ts': ['src/ports/store.ts', 'valibot', 'croner', 'node:crypto'],
      'src/domain/bad.ts': ['src/http/app.ts', 'hono', 'ioredis', 'node:net', 'node:fs', 'src/config/load.ts', 'scripts/tool.ts', 'src/protocol/status.ts'],
      'src/protocol/status.ts': ['src/domain/ok.ts', 'src/http/app.ts'],
      'scripts/tool.ts': ['src/main.ts', 'src/console/main.tsx'],
      'src/worker/sender.ts': ['kysely'],
      'src/adapters/http.ts': ['hono'],
      'src/config/load.ts': [],
      'src/ports/store.ts': ['src/domain/ok.ts', 'kysely', 'node:events'],
      'src/ports/bus.ts': ['src/ports/bus.ts'],
      'src/console/main.tsx': ['src/domain/ok.ts', 'preact'],
      'src/console/api.ts': ['src/console/main.tsx'],
      // the console may name the ports' types, never import their code
      'src/console/stream.ts': ['type:src/ports/events.ts', 'src/ports/bus.ts'],
      'src/ports/events.ts': [],
      'lib/stray.ts': [],
      'src/domain/a.ts': ['src/domain/b.ts'],
      'src/domain/b.ts': ['src/domain/c.ts'],
      'src/domain/c.ts': ['src/domain/a.ts'],
      // no file cycle, but two rooms of src/worker/ reach each other: one arrow points up
      'src/worker/webhook/send.ts': ['src/worker/queue/claim.ts'],
      'src/worker/queue/claim.ts': ['src/worker/webhook/types.ts'],
      'src/worker/webhook/types.ts': [],
    });
    fixture.get('src/domain/ok.ts')!.push({ specifier: './missing.js', target: '?./missing.js' });
    const facts = new Map([
      ['src/config/load.ts', factsOf('export const load = () => process.env.HEARTH_PORT;')],
      ['scripts/tool.ts', factsOf('const port = process.env.PORT;')],
      ['src/http/app.ts', factsOf('// process.env in a comment\nconst port = process.env.PORT;')],
      [
        'src/domain/bad.ts',
        factsOf(
          [
            'let calls = 0;',
            'export const seen = new Map<string, number>();',
            'const FIXED: readonly string[] = ["a"];',
            'const KINDS = ["a", "b"] as const;',
            'export function f() { let local = 1; return local; }',
          ].join('\n'),
        ),
      ],
      ['src/http/state.ts', factsOf('let cache = 0;')],
    ]);
    const found = allViolations(fixture, facts).map(keyOf).sort();
    expect(found).toEqual(
      [
        'adapter-throws-app-error | src/adapters/sql/kv.ts | ./src/domain/errors.ts',
        'console-leaves-console | src/console/main.tsx | ./src/domain/ok.ts',
        'console-leaves-console | src/console/stream.ts | ./src/ports/bus.ts',
        'cycle | src/domain/a.ts | src/domain/a.ts, src/domain/b.ts, src/domain/c.ts',
        'cycle | src/domain/ok.ts | src/domain/ok.ts, src/ports/store.ts',
        'cycle | src/ports/bus.ts | src/ports/bus.ts',
        'domain-package | src/domain/bad.ts | hono',
        'domain-package | src/domain/bad.ts | ioredis',
        'domain-package | src/domain/bad.ts | node:net',
        'domain-package | src/domain/bad.ts | node:fs',
        'console-leaves-console | scripts/tool.ts | ./src/console/main.tsx',
        'outward-import | src/domain/bad.ts | ./scripts/tool.ts',
        'edge-package | src/worker/sender.ts | kysely',
        'adapter-package | src/adapters/http.ts | hono',
        'env-outside-config | src/http/app.ts | process.env',
        'domain-module-state | src/domain/bad.ts | let calls',
        'domain-module-state | src/domain/bad.ts | const seen = new Map<string, number>()',
        'edge-imports-edge | broker/index.ts | ./src/http/errors.ts',
        'edge-imports-edge | src/http/app.ts | ./src/worker/index.ts',
        'outward-import | src/domain/bad.ts | ./src/config/load.ts',
        'outward-import | src/domain/bad.ts | ./src/http/app.ts',
        'outward-import | src/domain/bad.ts | ./src/protocol/status.ts',
        'outward-import | src/protocol/status.ts | ./src/http/app.ts',
        'outward-import | src/ports/store.ts | ./src/domain/ok.ts',
        'outward-import | src/worker/index.ts | ./src/adapters/sql/kv.ts',
        'ports-package | src/ports/store.ts | kysely',
        'unclassified-file | lib/stray.ts | ',
        'unresolved-import | src/domain/ok.ts | ./missing.js',
        'upward-in-folder | src/domain | a.ts <-> b.ts <-> c.ts',
        'upward-in-folder | src/worker | queue <-> webhook',
      ].sort(),
    );
  });
});

describe('the sources', () => {
  const DIRS = ['src', 'broker', 'scripts'];
  const graph = buildGraph(ROOT, DIRS);
  const violations = allViolations(graph, buildFacts(ROOT, DIRS));
  const known = new Set(KNOWN_BREAKS.map(keyOf));

  it('are all scanned', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.has('src/main.ts')).toBe(true);
    expect(graph.has('src/console/main.tsx')).toBe(true);
    expect(graph.has('scripts/admin/cli.ts')).toBe(true);
  });

  it('import inward only, with no cycles, read the environment only in configuration, and keep no state in the domain', () => {
    const unexpected = violations.filter((v) => !known.has(keyOf(v))).map((v) => v.message);
    expect(unexpected).toEqual([]);
  });

  it('still have every break KNOWN_BREAKS lists (delete the entry of a fixed one)', () => {
    const present = new Set(violations.map(keyOf));
    const fixed = KNOWN_BREAKS.filter((b) => !present.has(keyOf(b))).map((b) => `${keyOf(b)} (${b.why})`);
    expect(fixed).toEqual([]);
  });
});
