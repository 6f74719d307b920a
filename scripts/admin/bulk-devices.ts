// `devices import` and `devices export` (issue #25): many devices from a CSV file (header row) or
// JSON lines. The whole file is checked first (every bad line named, nothing imported); then the
// devices are created in batches, one transaction each, through the domain's createDevices, so keys
// are sealed and hashed as the API does. Each new device's id, key and claim code go once to the
// --out file (mode 0600, never overwritten).
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { AdminContext } from './context.js';
import { AdminError } from './admin-error.js';
import { UsageError } from './types.js';

export const IMPORT_BATCH = 1000;
const FIELDS = ['name', 'class', 'tag', 'homeId', 'description'] as const;

export interface ImportRow {
  line: number;
  name: string;
  deviceClass: string;
  tag?: string;
  homeId?: number;
  description?: string;
}

/** one CSV line into cells: commas, double quotes ("" inside quotes is a quote) */
function csvCells(line: string): string[] | undefined {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') ((cur += '"'), i++);
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"' && cur === '') quoted = true;
    else if (ch === ',') (out.push(cur), (cur = ''));
    else cur += ch;
  }
  if (quoted) return undefined;
  out.push(cur);
  return out;
}

/** the file's rows with their line numbers, or every problem found (line by line) */
export function parseImport(text: string): { rows: ImportRow[]; errors: string[] } {
  const lines = text.split(/\r?\n/);
  const errors: string[] = [];
  const rows: ImportRow[] = [];
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0) return { rows, errors: ['the file has no devices'] };
  const jsonl = lines[first].trimStart().startsWith('{');
  let header: string[] = [];
  if (!jsonl) {
    header = (csvCells(lines[first]) ?? []).map((h) => h.trim());
    const unknown = header.filter((h) => !(FIELDS as readonly string[]).includes(h));
    if (unknown.length || !header.includes('name') || !header.includes('class'))
      return {
        rows,
        errors: [`line ${first + 1}: the header must name the columns name, class and optionally tag, homeId, description; got ${header.join(',')}`],
      };
  }
  for (let i = jsonl ? first : first + 1; i < lines.length; i++) {
    const n = i + 1;
    if (lines[i].trim() === '') continue;
    let rec: Record<string, unknown>;
    if (jsonl) {
      try {
        rec = JSON.parse(lines[i]);
        if (!rec || typeof rec !== 'object' || Array.isArray(rec)) throw new Error('not an object');
      } catch (e) {
        errors.push(`line ${n}: not a JSON object (${(e as Error).message})`);
        continue;
      }
      const extra = Object.keys(rec).filter((k) => !(FIELDS as readonly string[]).includes(k));
      if (extra.length) {
        errors.push(`line ${n}: unknown field ${extra.join(', ')} (fields: ${FIELDS.join(', ')})`);
        continue;
      }
    } else {
      const cells = csvCells(lines[i]);
      if (!cells || cells.length !== header.length) {
        errors.push(`line ${n}: ${cells ? `${cells.length} cells, the header has ${header.length}` : 'an unclosed quote'}`);
        continue;
      }
      rec = Object.fromEntries(header.map((h, j) => [h, cells[j] === '' ? undefined : cells[j]]));
    }
    const text = (k: string) => (rec[k] === undefined || rec[k] === null ? undefined : typeof rec[k] === 'string' ? (rec[k] as string) : null);
    const name = text('name');
    const deviceClass = text('class');
    const bad: string[] = [];
    if (!name) bad.push('name is missing');
    if (!deviceClass) bad.push('class is missing');
    for (const k of ['tag', 'description']) if (text(k) === null) bad.push(`${k} must be text`);
    let homeId: number | undefined;
    const h = rec.homeId;
    if (h !== undefined && h !== null) {
      homeId = typeof h === 'number' ? h : typeof h === 'string' && /^[1-9]\d{0,9}$/.test(h) ? Number(h) : NaN;
      if (!Number.isInteger(homeId) || homeId < 1) bad.push(`homeId must be a positive integer, got ${JSON.stringify(h)}`);
    }
    if (bad.length) errors.push(`line ${n}: ${bad.join('; ')}`);
    else rows.push({ line: n, name: name!, deviceClass: deviceClass!, tag: text('tag') ?? undefined, homeId, description: text('description') ?? undefined });
  }
  if (!errors.length && !rows.length) errors.push('the file has no devices');
  return { rows, errors };
}

const ImportError = AdminError;

/** progress on stderr: a bar on a terminal, a line per 10 batches otherwise */
function progress(total: number) {
  const tty = process.stderr.isTTY === true;
  let lastLine = 0;
  return (done: number) => {
    if (tty) {
      const w = 30;
      const f = Math.round((done / total) * w);
      process.stderr.write(`\r[${'#'.repeat(f)}${' '.repeat(w - f)}] ${done}/${total} devices${done === total ? '\n' : ''}`);
    } else if (done === total || done - lastLine >= IMPORT_BATCH * 10) {
      lastLine = done;
      process.stderr.write(`imported ${done}/${total} devices\n`);
    }
  };
}

export async function importDevices(ctx: AdminContext, projectId: number, file: string, out: string) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ImportError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const { rows, errors } = parseImport(text);
  const caller = await ctx.adminOf(projectId);
  // classes and homes checked for the whole file (every row that parsed) before anything is written
  {
    const classes = new Set((await ctx.deps.store.deviceClasses.list(projectId)).map((c) => c.id));
    const homes = new Map<number, boolean>();
    for (const r of rows) {
      if (!classes.has(r.deviceClass)) errors.push(`line ${r.line}: unknown device class ${JSON.stringify(r.deviceClass)} in project ${projectId}`);
      if (r.homeId !== undefined) {
        if (!homes.has(r.homeId)) homes.set(r.homeId, (await ctx.deps.store.homes.get(r.homeId))?.projectId === projectId);
        if (!homes.get(r.homeId)) errors.push(`line ${r.line}: no home ${r.homeId} in project ${projectId}`);
      }
    }
  }
  if (errors.length) {
    const lineOf = (e: string) => Number(/^line (\d+)/.exec(e)?.[1] ?? 0);
    errors.sort((a, b) => lineOf(a) - lineOf(b));
    const shown = errors.slice(0, 20).join('\n  ');
    throw new ImportError(
      `${file}: nothing imported, ${errors.length} bad line${errors.length === 1 ? '' : 's'}:\n  ${shown}${errors.length > 20 ? `\n  ... and ${errors.length - 20} more` : ''}`,
    );
  }
  // 'wx': an existing file (keys of an earlier import) is never overwritten
  let fd: number;
  try {
    fd = openSync(out, 'wx', 0o600);
  } catch (e) {
    throw new ImportError(
      (e as NodeJS.ErrnoException).code === 'EEXIST'
        ? `--out ${out} exists: it is not overwritten (it may hold the keys of an earlier import)`
        : `cannot create ${out}: ${(e as Error).message}`,
    );
  }
  const { createDevices } = await import('../../src/domain/device/index.js');
  const show = progress(rows.length);
  let done = 0;
  try {
    for (let b = 0; b < rows.length; b += IMPORT_BATCH) {
      const batch = rows.slice(b, b + IMPORT_BATCH);
      // one transaction, one statement per 500 rows and one general-log line per batch
      const created = await ctx.deps.store.transaction(async (tx) => {
        const devices = await createDevices({
          deps: { ...ctx.deps, store: tx },
          caller,
          input: {
            projectId,
            devices: batch.map((r) => ({ deviceClass: r.deviceClass, name: r.name, tag: r.tag, homeId: r.homeId, description: r.description })),
          },
        });
        return devices.map((d, i) => ({ line: batch[i].line, id: d.id, name: batch[i].name, apiKey: d.apiKey, claimCode: d.claimCode }));
      });
      writeSync(fd, created.map((c) => JSON.stringify(c)).join('\n') + '\n');
      done += batch.length;
      show(done);
    }
  } catch (e) {
    // batches before this one are committed (and their keys written): the run resumes from the line named
    throw new ImportError(
      `import stopped at line ${rows[done].line} (${done} devices created, their keys are in ${out}): ${(e as Error).message}; remove the lines before ${rows[done].line} to resume`,
    );
  } finally {
    closeSync(fd);
  }
  return { imported: done, out };
}

/** every device of the project, without keys or claim codes, as JSON lines or CSV (stdout) */
export async function exportDevices(ctx: AdminContext, projectId: number, format: string): Promise<string> {
  const chunks: string[] = [];
  const write = (s: string) => chunks.push(s);
  if (format !== 'jsonl' && format !== 'csv') throw new UsageError(`--format must be jsonl or csv, got ${JSON.stringify(format)}`);
  await ctx.adminOf(projectId);
  const cols = ['id', 'name', 'class', 'tag', 'homeId', 'description', 'creationTime'] as const;
  const q = (v: unknown) => {
    const s = v === undefined || v === null ? '' : String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  if (format === 'csv') write(cols.join(',') + '\n');
  for (let skip = 0; ; skip += 1000) {
    const page = await ctx.deps.store.devices.list({ projectId }, { skip, limit: 1000 });
    for (const d of page.items) {
      const rec = { id: d.id, name: d.name, class: d.deviceClass, tag: d.tag, homeId: d.homeId, description: d.description, creationTime: d.creationTime };
      write(format === 'csv' ? cols.map((c) => q(rec[c])).join(',') + '\n' : JSON.stringify(rec) + '\n');
    }
    if (page.items.length < 1000) break;
  }
  return chunks.join('');
}
