// Reads the import graph of the sources for test/architecture.test.ts. The TypeScript
// compiler's own pre-processor finds the specifiers (static imports, `export ... from`,
// `import type`, `import('...')` with a literal), so comments, strings and template text
// never count as imports the way they would for a regex. The same files' syntax trees give the
// facts the other rules need (reads of process.env, module-level mutable state).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

export interface ImportRef {
  specifier: string;
  /** Repo-relative path of the file a relative specifier names; undefined for packages. */
  target?: string;
  /** every import of it in the file is `import type` / `export type ... from`: erased from any build */
  typeOnly?: boolean;
}

/** Repo-relative file path → what it imports. Paths always use '/'. */
export type ImportGraph = Map<string, ImportRef[]>;

const SOURCE = /\.tsx?$/;

export function listSources(root: string, dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir))) {
      const rel = `${dir}/${name}`;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(rel);
    }
  };
  for (const dir of dirs) walk(dir);
  return out.sort();
}

export function specifiersOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** the specifiers a file names only in `import type` and `export type ... from` declarations */
export function typeOnlySpecifiersOf(text: string, fileName = 'file.ts'): Set<string> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const typeOnly = new Set<string>();
  const valued = new Set<string>();
  for (const st of sf.statements) {
    const isImport = ts.isImportDeclaration(st);
    if (!isImport && !ts.isExportDeclaration(st)) continue;
    const spec = st.moduleSpecifier;
    if (!spec || !ts.isStringLiteral(spec)) continue;
    const onlyTypes = isImport ? st.importClause?.phaseModifier === ts.SyntaxKind.TypeKeyword : st.isTypeOnly;
    (onlyTypes ? typeOnly : valued).add(spec.text);
  }
  for (const s of valued) typeOnly.delete(s);
  return typeOnly;
}

/**
 * Resolves a relative specifier the way NodeNext does for our sources: `./x.js` names
 * `./x.ts` (or `.tsx`), and a directory import names its index.
 */
export function resolveRelative(from: string, specifier: string, exists: (p: string) => boolean): string | undefined {
  const base = posix.normalize(posix.join(posix.dirname(from), specifier));
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find(exists);
}

export function buildGraph(root: string, dirs: string[]): ImportGraph {
  const files = listSources(root, dirs);
  const known = new Set(files);
  const exists = (p: string): boolean => {
    if (known.has(p)) return true;
    try {
      return statSync(join(root, p)).isFile();
    } catch {
      return false;
    }
  };
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const typeOnly = typeOnlySpecifiersOf(text, file);
    graph.set(
      file,
      specifiersOf(text).map((specifier) => ({
        specifier,
        ...(specifier.startsWith('.') ? { target: resolveRelative(file, specifier, exists) ?? `?${specifier}` } : {}),
        ...(typeOnly.has(specifier) ? { typeOnly: true } : {}),
      })),
    );
  }
  return graph;
}

/** Turns an absolute path into the graph's '/'-separated repo-relative form. */
export function repoPath(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/');
}

/** What a file does besides importing, for the rules that are not about imports. */
export interface SourceFacts {
  /** lines that read `process.env` */
  envReads: number[];
  /** module-level mutable state: `let`/`var` bindings, and containers (Map, Set, arrays) a module-level const holds */
  moduleState: string[];
}

const CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** a module-level initialiser that builds a container others can change (`as const` and a readonly type say it is not changed) */
function isMutableContainer(d: ts.VariableDeclaration): boolean {
  const init = d.initializer;
  if (!init) return false;
  if (d.type && /^(readonly |Readonly(Set|Map|Array)<)/.test(d.type.getText())) return false;
  if (ts.isAsExpression(init) && init.type.getText() === 'const') return false;
  if (ts.isNewExpression(init)) return ts.isIdentifier(init.expression) && CONTAINERS.has(init.expression.text);
  return ts.isArrayLiteralExpression(init);
}

export function factsOf(text: string, fileName = 'file.ts'): SourceFacts {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const envReads: number[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isPropertyAccessExpression(n) && n.name.text === 'env' && ts.isIdentifier(n.expression) && n.expression.text === 'process') {
      envReads.push(sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  const moduleState: string[] = [];
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const list = st.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const d of list.declarations) {
      const name = d.name.getText(sf);
      if (!isConst) moduleState.push(`let ${name}`);
      else if (isMutableContainer(d)) moduleState.push(`const ${name} = ${d.initializer!.getText(sf).slice(0, 40)}`);
    }
  }
  return { envReads, moduleState };
}

export function buildFacts(root: string, dirs: string[]): Map<string, SourceFacts> {
  return new Map(listSources(root, dirs).map((file) => [file, factsOf(readFileSync(join(root, file), 'utf8'), file)]));
}
