// Reads the import graph of the sources for test/architecture.test.ts. The TypeScript
// compiler's own pre-processor finds the specifiers (static imports, `export ... from`,
// `import type`, `import('...')` with a literal), so comments, strings and template text
// never count as imports the way they would for a regex.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

export interface ImportRef {
  specifier: string;
  /** Repo-relative path of the file a relative specifier names; undefined for packages. */
  target?: string;
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
    graph.set(
      file,
      specifiersOf(text).map((specifier) =>
        specifier.startsWith('.') ? { specifier, target: resolveRelative(file, specifier, exists) ?? `?${specifier}` } : { specifier },
      ),
    );
  }
  return graph;
}

/** Turns an absolute path into the graph's '/'-separated repo-relative form. */
export function repoPath(root: string, abs: string): string {
  return relative(root, abs).split(sep).join('/');
}
