// Code cites the project's own docs/, never files a clone does not have (house rule 8): no source
// file under src/, broker/ or scripts/ cites the old specification files or ../shared, and every
// `docs/<page>.md#<anchor>` cited in code (tests included), and every link between the docs pages
// and from the README, lands on a page and heading that exist.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CODE = /\.(ts|js|mjs|cjs|sh)$/;

function filesUnder(dir: string, match: RegExp): string[] {
  const abs = join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const p = join(abs, name);
    return statSync(p).isDirectory() ? filesUnder(relative(ROOT, p), match) : match.test(name) ? [relative(ROOT, p)] : [];
  });
}

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to `-`, repeats numbered */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** the citations of old, outside specification files in a text (identifiers such as SPEC_STATUSES are not citations) */
export function outsideCitations(text: string): string[] {
  return [...text.matchAll(/API\.md|\bSPEC\b(?!_)|\.\.\/shared\b/g)].map((m) => m[0]);
}

describe('citations in code', () => {
  it('no file under src/, broker/ or scripts/ cites API.md, SPEC or ../shared', () => {
    const files = ['src', 'broker', 'scripts'].flatMap((d) => filesUnder(d, CODE));
    expect(files.length).toBeGreaterThan(100);
    const offenders: string[] = [];
    for (const f of files) {
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (outsideCitations(line).length) offenders.push(`${f}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });

  it('every docs/<page>.md#<anchor> cited in code exists', () => {
    const files = ['src', 'broker', 'scripts', 'test'].flatMap((d) => filesUnder(d, CODE));
    const cache = new Map<string, Set<string>>();
    const broken: string[] = [];
    let cited = 0;
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const m of text.matchAll(/docs\/([A-Za-z0-9_-]+)\.md(?:#([a-z0-9_-]+))?/g)) {
        cited++;
        const page = join(ROOT, 'docs', `${m[1]}.md`);
        if (!existsSync(page)) {
          broken.push(`${f}: ${m[0]} (no such page)`);
          continue;
        }
        if (!m[2]) continue;
        if (!cache.has(page)) cache.set(page, anchorsOf(readFileSync(page, 'utf8')));
        if (!cache.get(page)!.has(m[2])) broken.push(`${f}: ${m[0]} (no such heading)`);
      }
    }
    expect(cited).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('every link between the docs pages, and from the README into docs/, lands on a page and heading', () => {
    const pages = ['README.md', ...filesUnder('docs', /\.md$/)];
    const broken: string[] = [];
    for (const p of pages) {
      const text = readFileSync(join(ROOT, p), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+?\.(?:md|png))(?:#([^)\s]+))?\)/g)) {
        if (/^[a-z]+:/.test(m[1])) continue;
        const target = resolve(join(ROOT, p, '..'), m[1]);
        if (!existsSync(target)) broken.push(`${p}: ${m[0]} (no such file)`);
        else if (m[2] && !anchorsOf(readFileSync(target, 'utf8')).has(m[2])) broken.push(`${p}: ${m[0]} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the citation checks themselves', () => {
  it('finds citations of the old files and lets identifiers pass', () => {
    expect(outsideCitations('// (API.md §5) and SPEC §2.7, see ../shared/spec')).toEqual(['API.md', 'SPEC', '../shared']);
    expect(outsideCitations('import { SPEC_STATUSES } from "./spec-statuses.js"; // docs/api.md#errors')).toEqual([]);
  });

  it('computes GitHub anchors', () => {
    const a = anchorsOf('# Title\n## KV sync\n### With MQTT.js\n```\n# not a heading\n```\n## Claiming and provisioning\n## KV sync');
    expect([...a]).toEqual(['title', 'kv-sync', 'with-mqttjs', 'claiming-and-provisioning', 'kv-sync-1']);
  });
});
