// How a command's answer is printed: JSON with --json (for scripts: the same shape the HTTP API
// answers), otherwise a table for a list and `field  value` lines for an object.

export function render(out: unknown, opts: { json: boolean; columns?: string[] }): string {
  if (opts.json) return JSON.stringify(out ?? null, null, 2) + '\n';
  if (out === undefined || out === null) return '';
  if (typeof out === 'string') return out.endsWith('\n') ? out : out + '\n';
  if (Array.isArray(out)) return table(out, opts.columns);
  // an instruction (PostgreSQL backup and restore): what to run, ready to paste
  const o = out as { message?: unknown; command?: unknown };
  if (typeof o.message === 'string' && typeof o.command === 'string') return `${o.message}\n\n  ${o.command}\n`;
  if (typeof out === 'object') return fields(out as Record<string, unknown>);
  return String(out) + '\n';
}

/** `a.b` reads a nested field */
function pick(row: unknown, path: string): unknown {
  let v: unknown = row;
  for (const p of path.split('.')) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

function cell(v: unknown): string {
  if (v === undefined || v === null) return '';
  // one line per cell: multi-line values (module subscriptions) joined with commas
  if (typeof v === 'string') return v.replace(/\r?\n/g, ',');
  if (Array.isArray(v) && v.every((x) => typeof x !== 'object')) return v.join(',');
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function table(rows: unknown[], columns?: string[]): string {
  if (rows.length === 0) return '(none)\n';
  const cols = columns ?? Object.keys(rows[0] as object).filter((k) => rows.some((r) => typeof pick(r, k) !== 'object' || Array.isArray(pick(r, k))));
  const body = rows.map((r) => cols.map((c) => cell(pick(r, c))));
  const widths = cols.map((c, i) => Math.max(c.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((s, i) => (i === cells.length - 1 ? s : s.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(cols), ...body.map(line)].join('\n') + '\n';
}

function fields(obj: Record<string, unknown>): string {
  const keys = Object.keys(obj);
  const w = Math.max(...keys.map((k) => k.length));
  return keys.map((k) => `${k.padEnd(w)}  ${cell(obj[k])}`).join('\n') + '\n';
}
