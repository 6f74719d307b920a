// One pino JSON line as one human-readable line: local time, level, message, then the other
// fields as key=value; an error's stack follows on indented lines. Used for terminals only (each
// line is parsed again), so it is written for clarity, not speed.
const LEVELS: Record<number, [name: string, color: string]> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const RESET = '\x1b[0m';
/** pino's own fields, shown in the line's head or not at all */
const HEAD = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'v']);

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function fieldText(value: unknown): string {
  if (typeof value === 'string') return /^[\w.:/@+-]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

export function prettyLine(json: string, color = false): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(json);
  } catch {
    return json.endsWith('\n') ? json : json + '\n';
  }
  const t = new Date(typeof rec.time === 'number' ? rec.time : Date.now());
  const time = `${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}.${pad(t.getMilliseconds(), 3)}`;
  const [name, tint] = LEVELS[rec.level as number] ?? [String(rec.level).toUpperCase().padEnd(5), ''];
  const level = color && tint ? `${tint}${name}${RESET}` : name;
  let stack = '';
  const fields: string[] = [];
  for (const [k, v] of Object.entries(rec)) {
    if (HEAD.has(k)) continue;
    const err = v as { message?: unknown; stack?: unknown } | null;
    if (err && typeof err === 'object' && typeof err.stack === 'string') {
      stack += '\n    ' + err.stack.split('\n').join('\n    ');
      fields.push(`${k}=${fieldText(err.message)}`);
    } else fields.push(`${k}=${fieldText(v)}`);
  }
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  return `${time} ${level} ${msg}${fields.length ? (msg ? '  ' : '') + fields.join(' ') : ''}${stack}\n`;
}
