// The import rules of ARCHITECTURE.md ("Imports point inward"), enforced over every source
// file of src/ and broker/. The checkers live in test/helpers/import-rules.ts; the first block
// runs them on a fixture that breaks each rule, so this file cannot pass by checking nothing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildGraph, specifiersOf, type ImportGraph } from './helpers/import-graph.js';
import { allViolations, type Rule, type Violation } from './helpers/import-rules.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface KnownBreak {
  file: string;
  specifier: string;
  rule: Rule;
  why: string;
}

/**
 * Breaks kept for a reason written beside each: none today. The list may only shrink: a listed
 * break that no longer occurs fails the test, so whoever fixes one deletes its entry.
 */
const KNOWN_BREAKS: KnownBreak[] = [];

const keyOf = (v: Pick<Violation, 'file' | 'specifier' | 'rule'>): string => `${v.rule} | ${v.file} | ${v.specifier}`;

function graphOf(edges: Record<string, string[]>): ImportGraph {
  return new Map(
    Object.entries(edges).map(([file, targets]) => [
      file,
      targets.map((t) => (t.startsWith('src/') || t.startsWith('broker/') || t.startsWith('lib/') ? { specifier: `./${t}`, target: t } : { specifier: t })),
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
      'src/domain/bad.ts': ['src/http/app.ts', 'hono', 'ioredis', 'node:net', 'src/config/load.ts', 'src/protocol/status.ts'],
      'src/protocol/status.ts': ['src/domain/ok.ts', 'src/http/app.ts'],
      'src/config/load.ts': [],
      'src/ports/store.ts': ['src/domain/ok.ts', 'kysely', 'node:events'],
      'src/ports/bus.ts': ['src/ports/bus.ts'],
      'src/console/main.tsx': ['src/domain/ok.ts', 'preact'],
      'src/console/api.ts': ['src/console/main.tsx'],
      'lib/stray.ts': [],
      'src/domain/a.ts': ['src/domain/b.ts'],
      'src/domain/b.ts': ['src/domain/c.ts'],
      'src/domain/c.ts': ['src/domain/a.ts'],
    });
    fixture.get('src/domain/ok.ts')!.push({ specifier: './missing.js', target: '?./missing.js' });
    const found = allViolations(fixture).map(keyOf).sort();
    expect(found).toEqual(
      [
        'adapter-throws-app-error | src/adapters/sql/kv.ts | ./src/domain/errors.ts',
        'console-leaves-console | src/console/main.tsx | ./src/domain/ok.ts',
        'cycle | src/domain/a.ts | src/domain/a.ts, src/domain/b.ts, src/domain/c.ts',
        'cycle | src/domain/ok.ts | src/domain/ok.ts, src/ports/store.ts',
        'cycle | src/ports/bus.ts | src/ports/bus.ts',
        'domain-package | src/domain/bad.ts | hono',
        'domain-package | src/domain/bad.ts | ioredis',
        'domain-package | src/domain/bad.ts | node:net',
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
      ].sort(),
    );
  });
});

describe('the sources', () => {
  const graph = buildGraph(ROOT, ['src', 'broker']);
  const violations = allViolations(graph);
  const known = new Set(KNOWN_BREAKS.map(keyOf));

  it('are all scanned', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.has('src/main.ts')).toBe(true);
    expect(graph.has('src/console/main.tsx')).toBe(true);
  });

  it('import inward only, with no cycles', () => {
    const unexpected = violations.filter((v) => !known.has(keyOf(v))).map((v) => v.message);
    expect(unexpected).toEqual([]);
  });

  it('still have every break KNOWN_BREAKS lists (delete the entry of a fixed one)', () => {
    const present = new Set(violations.map(keyOf));
    const fixed = KNOWN_BREAKS.filter((b) => !present.has(keyOf(b))).map((b) => `${keyOf(b)} (${b.why})`);
    expect(fixed).toEqual([]);
  });
});
