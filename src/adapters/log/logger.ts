// The process log: pino, JSON lines by default (for a log collector), human-readable lines when
// stdout is a terminal or HEARTH_LOG_FORMAT=pretty. `auto` picks by the terminal.
import { pino, type Logger } from 'pino';
import { prettyLine } from './pretty.js';

export type LogFormat = 'auto' | 'json' | 'pretty';

export interface LogOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export function createLogger(o: { level: string; format: LogFormat }, out: LogOutput = process.stdout): Logger {
  const pretty = o.format === 'pretty' || (o.format === 'auto' && out.isTTY === true);
  if (!pretty) return out === process.stdout ? pino({ level: o.level }) : pino({ level: o.level }, { write: (line: string) => void out.write(line) });
  const color = out.isTTY === true;
  return pino({ level: o.level }, { write: (line: string) => void out.write(prettyLine(line, color)) });
}
