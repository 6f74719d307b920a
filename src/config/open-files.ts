// The process's open-file limit, read once at start (docs/operations.md#open-files): every device
// connection is a file descriptor, so the soft limit caps how many devices one process can hold.
// Node has no API for it; Linux states it in /proc/self/limits.
import { readFileSync } from 'node:fs';

/** `null`: unlimited */
export interface OpenFileLimit {
  soft: number | null;
  hard: number | null;
}

/** descriptors kept back from devices: the database, HTTP clients, webhook requests, log files, Redis */
export const OPEN_FILES_RESERVE = 1024;
/** below this soft limit the start-up log warns (docs/operations.md#open-files) */
export const OPEN_FILES_RECOMMENDED = 65_536;

/** the "Max open files" line of /proc/<pid>/limits; undefined when the text has none */
export function parseOpenFileLimit(procLimits: string): OpenFileLimit | undefined {
  const m = /^Max open files\s+(\S+)\s+(\S+)/m.exec(procLimits);
  if (!m) return undefined;
  const value = (s: string) => (s === 'unlimited' ? null : Number.isFinite(Number(s)) ? Number(s) : null);
  return { soft: value(m[1]), hard: value(m[2]) };
}

/** this process's limit; undefined off Linux (no /proc) */
export function readOpenFileLimit(): OpenFileLimit | undefined {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/** the start-up lines: how many device connections the limit allows, and a warning with the remedy when it is low */
export function openFilesReport(limit: OpenFileLimit): { info: string; warn?: string } {
  const fmt = (n: number | null) => (n === null ? 'unlimited' : n.toLocaleString('en-US'));
  if (limit.soft === null) return { info: `open-file limit: unlimited (soft), ${fmt(limit.hard)} (hard): device connections are not limited by it` };
  const devices = Math.max(0, limit.soft - OPEN_FILES_RESERVE);
  const info = `open-file limit ${fmt(limit.soft)} (soft), ${fmt(limit.hard)} (hard): room for about ${fmt(devices)} device connections (${fmt(OPEN_FILES_RESERVE)} kept for the database, HTTP and webhooks)`;
  if (limit.soft >= OPEN_FILES_RECOMMENDED) return { info };
  const raise = limit.hard !== null && limit.hard <= limit.soft ? 'raise it (and the hard limit)' : `raise it (the hard limit allows ${fmt(limit.hard)})`;
  return {
    info,
    warn: `open-file limit ${fmt(limit.soft)} is under ${fmt(OPEN_FILES_RECOMMENDED)}: this process holds at most about ${fmt(devices)} device connections; ${raise}: systemd LimitNOFILE=${OPEN_FILES_RECOMMENDED}, docker run --ulimit nofile=${OPEN_FILES_RECOMMENDED}:${OPEN_FILES_RECOMMENDED}, compose ulimits: nofile, or ulimit -n in the shell that starts it (docs/operations.md#open-files)`,
  };
}
