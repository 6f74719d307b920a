// `npm run bench -- --against <rev> [--rounds N] [--same-harness] <bench...>`: an A/B run. A is
// this checkout (its working tree, uncommitted changes included), B is <rev> checked out in a
// temporary git worktree under os.tmpdir() with this checkout's node_modules symlinked into it (no
// `npm ci`: a dependency that differs between the two revisions is ignored, both run this
// checkout's packages; `--modules <dir>` links B to another node_modules, e.g. one that adds a
// package B still imports). Each round runs every named bench once from A's tree and once from B's,
// alternating (A, B in odd rounds, B, A in even ones), each as its own `tsx scripts/bench/index.ts <bench>` process, so each
// side's Hearth is its own revision's server, built into its own dist/ before the first round (the
// benches load the built server, baselines/hearth.ts), and each measures its baselines in the same round as
// the other side. Every "N.NNx" ratio a bench prints is a figure; the report is both sides'
// figures per round with their medians, B/A of the medians (the ratio of ratios) and a verdict.
//
// The bench scripts (load generators, baselines, the ratios they print) are by default each
// revision's own, which always fit its src/; when scripts/bench differs between the two the run
// says so. `--same-harness` copies this checkout's scripts/bench over B's instead, so both sides
// are measured by identical code (it fails where this harness needs src/ that B lacks).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface AbArgs {
  against: string;
  rounds: number;
  sameHarness: boolean;
  /** node_modules for B instead of this checkout's (B's dependencies differ) */
  modules?: string;
  benches: string[];
}

/** the A/B flags out of `npm run bench` arguments; undefined when there is no --against */
export function parseAbArgs(argv: string[]): AbArgs | undefined {
  let against: string | undefined;
  let rounds = 3;
  let sameHarness = false;
  let modules: string | undefined;
  const benches: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (flag: string) => {
      const eq = a.indexOf('=');
      if (eq >= 0) return a.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined || v.startsWith('-')) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (a === '--against' || a.startsWith('--against=')) against = value('--against');
    else if (a === '--rounds' || a.startsWith('--rounds=')) {
      const raw = value('--rounds');
      rounds = Number(raw);
      if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a whole number of at least 1, got ${raw}`);
    } else if (a === '--modules' || a.startsWith('--modules=')) modules = resolve(value('--modules'));
    else if (a === '--same-harness') sameHarness = true;
    else if (a.startsWith('-')) throw new Error(`unknown option ${a} (known: --against <rev>, --rounds <n>, --same-harness, --modules <dir>)`);
    else benches.push(a);
  }
  if (against === undefined) {
    if (sameHarness || modules || argv.some((a) => a.startsWith('--rounds')))
      throw new Error('--rounds, --same-harness and --modules only go with --against <rev>');
    return undefined;
  }
  if (!against) throw new Error('--against needs a git revision');
  return { against, rounds, sameHarness, ...(modules ? { modules } : {}), benches };
}

/** label → value for every "N.NNx" ratio a bench printed, and every "N µs CPU" (CPU time per
 * event or request: on a busy machine the steadiest figure there is, lower is better).
 *
 * A figure is keyed by a stable name, the same in every run and on both sides of an A/B run: the
 * text before the number on its line and the words right after it (its unit: "1.80x memory per
 * connection", "1.16x events/s"), numbers replaced by # (a name like p99 is kept, and so is a
 * size after "at": "at 1,000" names a figure, "4,321 events/s" does not). In a table whose header names ratio columns ("wall
 * x  CPU x"), a row's ratios are named by the row and their column. Only a name that is still
 * repeated (a bench printing the very same line twice) gets " (2)", " (3)"... */
export function parseFigures(output: string): Map<string, number> {
  const figures = new Map<string, number>();
  const norm = (s: string) =>
    s
      // an aside (a long or numeric parenthesis) is dropped; a short name like (MQTT) is kept
      .replace(/\s*\(([^()]*)\)/g, (all, inner: string) => (inner.length > 12 || /\d/.test(inner) ? '' : all))
      .replace(/(\bat \d[\d,.]*)|(?<!\w)\d[\d,.]*/g, (all, size?: string) => size ?? '#')
      .replace(/\s+/g, ' ')
      .replace(/^[\s:;,=()]+|[\s:;,=(]+$/g, '');
  const put = (label: string, value: number) => {
    let key = label;
    for (let n = 2; figures.has(key); n++) key = `${label} (${n})`;
    figures.set(key, value);
  };
  // the ratio columns of the table being printed ("wall x", "CPU x"), while its rows follow
  let columns: string[] = [];
  for (const line of output.split('\n')) {
    // the closing summary ("  api  FAIL  hearth 276 req/s ... 0.57x") repeats figures printed above
    if (/^\s*\S+\s+(PASS|FAIL)\s/.test(line)) continue;
    const header = line
      .trim()
      .split(/\s{2,}/)
      .filter((cell) => /^[A-Za-z][\w/ ]* x$/.test(cell));
    if (header.length) {
      columns = header;
      continue;
    }
    const ratios = [...line.matchAll(/(?<![\w.])(\d+(?:\.\d+)?)x(?![\w])/g)];
    if (!ratios.length) columns = [];
    let first = '';
    let from = 0;
    let nth = 0;
    const named: [string, number][] = [];
    for (const m of ratios) {
      const end = m.index! + m[0].length;
      // a floor the bench holds itself to ("floor 0.6x") is a constant, not a figure
      if (/(floor|≤|>=|≥)\s*$/.test(line.slice(from, m.index))) {
        from = end;
        continue;
      }
      // after a verdict ("(floor 0.5x: PASS);  by CPU per message 0.68x") the label starts anew
      const before = norm(line.slice(from, m.index).replace(/^.*;/, ''));
      // its unit: the words after the number, up to an aside, a separator or the next number
      const unit = /^[ \t]+([A-Za-zµ][^(,;=\d]*)/.exec(line.slice(end));
      const after = unit ? norm(unit[1]) : '';
      from = end + (unit ? unit[0].length : 0);
      nth++;
      const text = [before, after].filter(Boolean).join(' ');
      const label = first ? `${first} · ${text || `#${nth}`}` : text || '(unlabelled)';
      if (!first) first = before || label;
      named.push([label, Number(m[1])]);
    }
    // a table row (nothing but its ratios after the first): they take their column's name
    if (columns.length && named.length === columns.length && /^(\s*\d+(\.\d+)?x)+\s*$/.test(line.slice(ratios[0].index))) {
      const row = norm(line.trim().split(/\s{2,}/)[0]);
      named.forEach(([, v], i) => put(`${row} · ${columns[i]}`, v));
    } else for (const [label, v] of named) put(label, v);
    for (const m of line.matchAll(/(?<![\w.])(\d[\d,]*(?:\.\d+)?) µs CPU/g))
      put(`${norm(line.slice(0, m.index))} µs CPU`.trim(), Number(m[1].replace(/,/g, '')));
  }
  return figures;
}

/** figures where a smaller number is the better one: memory, time, latency, CPU cost against a
 * baseline ("1.80x memory per connection", "p99 / bare", a "CPU x" column, "CPU per connect 1.66x") and CPU per event. A
 * ratio "by CPU" is the baseline's CPU over Hearth's, a speed-up: higher is better, like
 * throughput ("events/s", "req/s", "connects/s", "faster"). */
export const lowerIsBetter = (label: string): boolean => {
  // a repeat's " (2)", " (3)" (parseFigures) is a place, not part of the figure's name
  const named = label.replace(/ \(\d+\)$/, '');
  const figure = named.includes(' · ') ? named.slice(named.lastIndexOf(' · ') + 3) : named;
  // CPU per event measured at a rate ("hearth MQTT @1797/s: ... µs CPU"): the unit decides
  if (/µs CPU$/.test(figure)) return true;
  if (/\bby CPU\b|\/s\b|faster/i.test(figure)) return false;
  // "CPU per connect 1.66x": Hearth's CPU per operation over the baseline's (a "by CPU" is caught above)
  return /memory|heap|rss|time|latency|p50|p99|wall|cpu x|\bcpu per\b|\bms\b|µs/i.test(figure);
};

/** the middle value (of an even count, the mean of the two middle ones) */
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export interface FigureRow {
  label: string;
  a: number[];
  b: number[];
  /** median(B) / median(A) */
  ratio: number;
  verdict: string;
}

/** one row per figure both sides printed in every round: the ratio of ratios and a verdict. A
 * change under `noise` (a fraction) either way, or rounds that disagree, is "no clear change". */
export function compareFigures(a: Map<string, number>[], b: Map<string, number>[], noise = 0.05): FigureRow[] {
  const rows: FigureRow[] = [];
  for (const label of a[0]?.keys() ?? []) {
    if (![...a, ...b].every((m) => m.has(label))) continue;
    const av = a.map((m) => m.get(label)!);
    const bv = b.map((m) => m.get(label)!);
    const ratio = median(av) ? median(bv) / median(av) : NaN;
    const lower = lowerIsBetter(label);
    // per round B/A, turned so that > 1 means B is better
    const perRound = av.map((x, i) => (lower ? x / bv[i] : bv[i] / x));
    const better = lower ? 1 / ratio : ratio;
    const all = (p: (r: number) => boolean) => perRound.every(p);
    const pct = `${better >= 1 ? '+' : ''}${((better - 1) * 100).toFixed(0)}%`;
    let verdict: string;
    if (!Number.isFinite(ratio)) verdict = 'no figure';
    else if (better >= 1 + noise && all((r) => r > 1)) verdict = `B better (${pct}${perRound.length > 1 ? ', every round' : ''})`;
    else if (better <= 1 - noise && all((r) => r < 1)) verdict = `B worse (${pct}${perRound.length > 1 ? ', every round' : ''})`;
    else verdict = `no clear change (${pct}, rounds ${perRound.map((r) => r.toFixed(2)).join(' ')})`;
    rows.push({ label, a: av, b: bv, ratio, verdict });
  }
  return rows;
}

export function formatTables(name: string, rows: FigureRow[], sides: { a: string; b: string }): string {
  const out: string[] = [];
  const width = Math.min(70, Math.max(20, ...rows.map((r) => r.label.length)));
  const cut = (s: string) => (s.length > width ? `${s.slice(0, width - 1)}…` : s.padEnd(width));
  const vals = (xs: number[]) => `${xs.map((x) => x.toFixed(2)).join(' ')}  (median ${median(xs).toFixed(2)})`;
  for (const [side, key] of [
    [`A ${sides.a}`, 'a'],
    [`B ${sides.b}`, 'b'],
  ] as const) {
    out.push(`  ${name}, ${side}: ratio per round`);
    for (const r of rows) out.push(`    ${cut(r.label)}  ${vals(r[key])}`);
  }
  out.push(
    `  ${name}, B/A (ratio of ratios, medians; ${rows.some((r) => lowerIsBetter(r.label)) ? 'memory, time, latency and µs CPU figures: lower is better' : 'higher is better'})`,
  );
  for (const r of rows) out.push(`    ${cut(r.label)}  ${r.ratio.toFixed(2)}  ${r.verdict}`);
  return out.join('\n');
}

const git = (cwd: string, args: string[]): string => {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
};

/** run one bench from one tree; resolves with everything it printed (also echoed, indented) */
function runBench(root: string, bench: string, tag: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const proc = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['scripts/bench/index.ts', bench], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let pending = '';
    const echo = (chunk: Buffer) => {
      const text = chunk.toString();
      out += text;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const l of lines) console.log(`  [${tag}] ${l}`);
    };
    proc.stdout.on('data', echo);
    proc.stderr.on('data', echo);
    proc.on('error', reject);
    proc.on('close', (code) => {
      if (pending) console.log(`  [${tag}] ${pending}`);
      if (code === 0) resolvePromise(out);
      else reject(new Error(`${tag}: bench ${bench} exited with ${code}`));
    });
  });
}

/** benches that start the built server or CLI from dist/: every bench that measures Hearth
 * (baselines/hearth.ts) and the CLI; cli and startup also need the console's build (the full one) */
const NEEDS_BUILD = new Set(['cli', 'startup', 'api', 'webhooks', 'ingest', 'commands', 'connections', 'flood', 'tsdb', 'fleet', 'rollout', 'cluster']);
const NEEDS_FULL_BUILD = new Set(['cli', 'startup']);

export async function runAb(args: AbArgs, known: string[]): Promise<void> {
  const here = resolve(import.meta.dirname, '..', '..', '..');
  const sha = git(here, ['rev-parse', '--verify', `${args.against}^{commit}`]);
  const benches = args.benches.length ? args.benches : known;
  const dir = mkdtempSync(join(tmpdir(), `hearth-ab-${sha.slice(0, 8)}-`));
  const other = join(dir, 'tree');
  let added = false;
  const cleanup = () => {
    if (added) spawnSync('git', ['worktree', 'remove', '--force', other], { cwd: here });
    rmSync(dir, { recursive: true, force: true });
    spawnSync('git', ['worktree', 'prune'], { cwd: here });
  };
  const onSignal = () => {
    cleanup();
    process.exit(130);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    git(here, ['worktree', 'add', '--detach', '--quiet', other, sha]);
    added = true;
    symlinkSync(args.modules ?? resolve(here, 'node_modules'), join(other, 'node_modules'), 'dir');
    const head = git(here, ['rev-parse', '--short', 'HEAD']);
    const dirty = git(here, ['status', '--porcelain', '--untracked-files=no']) ? ' + uncommitted changes' : '';
    const sides = { a: `this checkout (${head}${dirty})`, b: `${args.against} (${sha.slice(0, 10)})` };
    console.log(`A/B: A = ${sides.a}, B = ${sides.b} in ${other}`);
    if (args.modules) console.log(`  B runs the node_modules in ${args.modules}`);
    else console.log(`  B runs this checkout's node_modules: dependency changes between the two revisions are not measured (--modules <dir> gives B others)`);
    if (args.sameHarness) {
      rmSync(join(other, 'scripts', 'bench'), { recursive: true, force: true });
      cpSync(join(here, 'scripts', 'bench'), join(other, 'scripts', 'bench'), { recursive: true });
      console.log(`  --same-harness: B is measured by this checkout's scripts/bench`);
    } else {
      const differs = spawnSync('git', ['diff', '--quiet', sha, '--', 'scripts/bench'], { cwd: here }).status !== 0;
      if (differs) console.log(`  scripts/bench differs between A and B: each side runs its own (--same-harness runs A's on both)`);
    }
    // built before the first round, on both sides: a bench builds an out-of-date dist/ itself
    // (baselines/hearth.ts), which would otherwise fall into round 1 of one side only
    if (benches.some((b) => NEEDS_BUILD.has(b))) {
      const only = benches.some((b) => NEEDS_FULL_BUILD.has(b)) ? [] : ['--server-only'];
      for (const root of [here, other]) {
        const r = spawnSync(process.execPath, ['scripts/build.mjs', ...only], { cwd: root, stdio: 'inherit' });
        if (r.status !== 0) throw new Error(`node scripts/build.mjs failed in ${root}`);
      }
    }
    const figures: Record<string, { a: Map<string, number>[]; b: Map<string, number>[] }> = {};
    const loads: number[] = [];
    for (let round = 1; round <= args.rounds; round++) {
      for (const bench of benches) {
        figures[bench] ??= { a: [], b: [] };
        // A then B in odd rounds, B then A in even ones: a side that always ran first (a cooler
        // machine, or one still busy with the other side's exit) read differently for no reason
        // of its code (api-edge saw the webhooks MQTT ratio differ with no change on that path)
        const sides = [
          ['a', here],
          ['b', other],
        ] as const;
        for (const [side, root] of round % 2 ? sides : [...sides].reverse()) {
          loads.push(loadavg()[0]);
          console.log(`\n== round ${round}/${args.rounds} ${bench}, ${side.toUpperCase()} (load average ${loadavg()[0].toFixed(2)})`);
          figures[bench][side].push(parseFigures(await runBench(root, bench, `${side.toUpperCase()}${round}`)));
        }
      }
    }
    console.log(
      `\n== A/B summary: ${args.rounds} round(s), A then B in odd rounds, B then A in even ones; load average ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)} on ${availableParallelism()} cores`,
    );
    for (const bench of benches) {
      const rows = compareFigures(figures[bench].a, figures[bench].b);
      if (!rows.length) console.log(`  ${bench}: no ratio both sides printed in every round`);
      else console.log(formatTables(bench, rows, sides));
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    cleanup();
  }
}
