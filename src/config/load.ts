// Loads config/default.json, then an optional file named by HEARTH_CONFIG, then HEARTH_*
// variables, and validates the result once. A bad value stops start-up with one line naming the
// setting, the value and what is expected.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { ConfigSchema, type Config } from './schema.js';
import { distance } from './distance.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const DEFAULT_FILE = fileURLToPath(new URL('../../config/default.json', import.meta.url));

type Tree = { [k: string]: unknown };
const isTree = (x: unknown): x is Tree => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `limits.httpBodyBytes` → `HEARTH_LIMITS_HTTP_BODY_BYTES` */
export function envNameOf(path: string[]): string {
  return 'HEARTH_' + path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('_');
}

/** Converts an environment string to the type of the default it overrides. */
function coerce(raw: string, like: unknown): unknown {
  if (typeof like === 'number') return raw.trim() === '' ? NaN : Number(raw);
  if (typeof like === 'boolean') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  if (Array.isArray(like)) {
    const parts = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    return typeof like[0] === 'number' ? parts.map(Number) : parts;
  }
  return raw;
}

function readJson(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`config: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text);
    if (!isTree(parsed)) throw new Error('expected a JSON object');
    return parsed;
  } catch (e) {
    throw new ConfigError(`config: ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [k, val] of Object.entries(over)) out[k] = isTree(val) && isTree(base[k]) ? merge(base[k] as Tree, val) : val;
  return out;
}

/** Applies HEARTH_* variables over the tree; remembers where each value came from. */
function applyEnv(tree: Tree, env: NodeJS.ProcessEnv, sources: Map<string, string>, path: string[] = []): Tree {
  const out: Tree = {};
  for (const [k, val] of Object.entries(tree)) {
    const p = [...path, k];
    if (isTree(val)) {
      out[k] = applyEnv(val, env, sources, p);
      continue;
    }
    const name = envNameOf(p);
    const raw = env[name];
    if (raw !== undefined) {
      out[k] = coerce(raw, val);
      sources.set(p.join('.'), `${name}=${JSON.stringify(raw)}`);
    } else out[k] = val;
  }
  return out;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  let tree = readJson(DEFAULT_FILE);
  const sources = new Map<string, string>();
  if (env.HEARTH_CONFIG) tree = merge(tree, readJson(env.HEARTH_CONFIG));
  tree = applyEnv(tree, env, sources);
  const result = v.safeParse(ConfigSchema, tree);
  if (result.success) return result.output;
  const issue = result.issues[0];
  const path = (issue.path ?? []).map((p) => String(p.key)).filter((k) => !/^\d+$/.test(k));
  const dotted = path.join('.');
  const where = sources.get(dotted) ?? `${dotted || 'config'} (${envNameOf(path)})=${JSON.stringify(issue.input)}`;
  throw new ConfigError(`config: ${where} is invalid: ${issue.message}`);
}

/** HEARTH_* names that are not settings: the file to load, and what tests and benchmarks read */
const NOT_SETTINGS = /^HEARTH_(CONFIG$|TEST_|BENCH_)/;

function leafNames(tree: Tree, path: string[] = [], out: string[] = []): string[] {
  for (const [k, val] of Object.entries(tree)) {
    if (isTree(val)) leafNames(val, [...path, k], out);
    else out.push(envNameOf([...path, k]));
  }
  return out;
}

/**
 * The HEARTH_* variables that name no setting (a typo such as HEARTH_HTTPPORT is otherwise
 * silently ignored), each with the closest setting's name when one is near enough.
 */
export function unknownVariables(env: NodeJS.ProcessEnv = process.env): { name: string; closest?: string }[] {
  const known = new Set(leafNames(readJson(DEFAULT_FILE)));
  const out: { name: string; closest?: string }[] = [];
  for (const name of Object.keys(env)) {
    if (!name.startsWith('HEARTH_') || known.has(name) || NOT_SETTINGS.test(name)) continue;
    let closest: string | undefined;
    let best = Infinity;
    for (const k of known) {
      const d = distance(name, k);
      if (d < best) [best, closest] = [d, k];
    }
    // a name cut short (HEARTH_TLS_CERT for HEARTH_TLS_CERT_FILE) means its shortest extension
    const extended = [...known].filter((k) => k.startsWith(name + '_')).sort((a, b) => a.length - b.length)[0];
    if (extended) out.push({ name, closest: extended });
    // a third of the name changed is a different name, not a typo of this one
    else out.push(best <= Math.max(2, Math.floor((name.length - 'HEARTH_'.length) / 3)) ? { name, closest } : { name });
  }
  return out;
}
