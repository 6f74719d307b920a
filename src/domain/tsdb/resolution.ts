// docs/timeseries.md#resolutions: the resolutions of a data query, the rollup each one reads
// (docs/timeseries.md#rollups: the coarsest kept level that divides it), and the automatic choice
// of about 1,000 buckets. Buckets are whole: a query's begin and end widen to bucket boundaries.
// Pure: no I/O.
import type { TsdbSource } from '../../ports/store.js';

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
// 1970-01-01 was a Thursday: weeks start on Mondays, four days later
const MONDAY = 4 * DAY;

export const RESOLUTIONS = ['5sec', '15sec', '1min', '5min', '15min', '1hour', '3hour', '6hour', '12hour', '1day', '1week', '1month'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

interface Spec {
  /** bucket width; a month is calendar (UTC), its width here only sizes the automatic choice */
  width: number;
  offset: number;
  source: TsdbSource;
}
const SPECS: Record<Resolution, Spec> = {
  '5sec': { width: 5 * SEC, offset: 0, source: 'raw' },
  '15sec': { width: 15 * SEC, offset: 0, source: 'raw' },
  '1min': { width: MIN, offset: 0, source: '1min' },
  '5min': { width: 5 * MIN, offset: 0, source: '1min' },
  '15min': { width: 15 * MIN, offset: 0, source: '1min' },
  '1hour': { width: HOUR, offset: 0, source: '1hour' },
  '3hour': { width: 3 * HOUR, offset: 0, source: '1hour' },
  '6hour': { width: 6 * HOUR, offset: 0, source: '1hour' },
  '12hour': { width: 12 * HOUR, offset: 0, source: '1hour' },
  '1day': { width: DAY, offset: 0, source: '1day' },
  '1week': { width: 7 * DAY, offset: MONDAY, source: '1day' },
  '1month': { width: 30 * DAY, offset: 0, source: '1day' },
};

/** docs/timeseries.md#resolutions: the service's choice answers with at most about this many buckets */
export const AUTO_BUCKETS = 1000;
/** docs/timeseries.md#resolutions: a resolution the client names may ask for at most this many */
export const MAX_BUCKETS = 10_000;

/** the finest resolution giving at most AUTO_BUCKETS buckets over [begin, end) */
export function autoResolution(begin: number, end: number): Resolution {
  for (const r of RESOLUTIONS) if (Math.ceil((end - begin) / SPECS[r].width) <= AUTO_BUCKETS) return r;
  return '1month';
}

const monthStart = (t: number): number => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonth = (t: number): number => {
  const d = new Date(t);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

export interface Plan {
  source: TsdbSource;
  /** the widened range, whole buckets */
  begin: number;
  end: number;
  width: number;
  offset: number;
  buckets: number;
  /** 1month: the source's day buckets are grouped into calendar months afterwards */
  monthly: boolean;
}

/** what to read for `resolution` over [begin, end) */
export function planOf(resolution: Resolution, begin: number, end: number): Plan {
  const s = SPECS[resolution];
  if (resolution === '1month') {
    const b = monthStart(begin);
    let e = monthStart(end);
    if (e < end) e = nextMonth(e);
    const d0 = new Date(b);
    const d1 = new Date(e);
    const buckets = (d1.getUTCFullYear() - d0.getUTCFullYear()) * 12 + d1.getUTCMonth() - d0.getUTCMonth();
    return { source: s.source, begin: b, end: e, width: DAY, offset: 0, buckets, monthly: true };
  }
  const down = (t: number) => Math.floor((t - s.offset) / s.width) * s.width + s.offset;
  const b = down(begin);
  let e = down(end);
  if (e < end) e += s.width;
  return { source: s.source, begin: b, end: e, width: s.width, offset: s.offset, buckets: (e - b) / s.width, monthly: false };
}

/** the calendar month (UTC) a day bucket belongs to */
export const monthOf = monthStart;
