// Report schedules (docs/concepts.md#reports `schedule: {cron, timezone}`), read by croner. A schedule is
// checked when saved, and a bad one is refused with croner's own reason: a cron expression of
// five fields (minute hour day-of-month month day-of-week) or a nickname such as `@daily`, in an
// IANA time zone. Seconds fields are refused: a report runs at most once a minute.
import { Cron } from 'croner';
import { AppError } from '../errors.js';

export interface Schedule {
  cron: string;
  timezone: string;
}

const NICKNAMES: readonly string[] = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

const invalid = (path: string, message: string) => new AppError('INVALID_PARAMETERS', { issues: [{ path, message }] });

/** the zone as Intl knows it: croner accepts an unknown zone and fails only when asked for a run */
function checkZone(timezone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw invalid('schedule.timezone', `"${timezone}" is not an IANA time zone (e.g. UTC, Europe/Paris, America/New_York)`);
  }
}

function cronOf(s: Schedule): Cron {
  return new Cron(s.cron, { timezone: s.timezone, paused: true, legacyMode: true });
}

/** refuses a schedule that is malformed, in an unknown zone, or that never fires */
export function checkSchedule(s: Schedule, now: Date): void {
  const expr = s.cron.trim();
  const nickname = expr.startsWith('@');
  if (nickname ? !NICKNAMES.includes(expr.toLowerCase()) : expr.split(/\s+/).length !== 5) {
    throw invalid('schedule.cron', `"${s.cron}" must have five fields (minute hour day-of-month month day-of-week) or be one of ${NICKNAMES.join(', ')}`);
  }
  checkZone(s.timezone);
  let next: Date | null;
  try {
    next = cronOf(s).nextRun(now);
  } catch (e) {
    throw invalid('schedule.cron', `"${s.cron}": ${(e as Error).message}`);
  }
  if (!next) throw invalid('schedule.cron', `"${s.cron}" never fires`);
}

/** the first fire time strictly after `after`, in UTC; null when the schedule has no more */
export function nextRunAfter(s: Schedule, after: Date): string | null {
  const next = cronOf(s).nextRun(after);
  return next ? next.toISOString() : null;
}
