// docs/timeseries.md#sending-points: the points an event carries for the project's tsdb modules.
// `eventData.timeSeriesData` is an array of {seriesId, timestamp, value}; a point that is not one
// is dropped and counted (dropped.ts), never failing the event. Pure: no I/O, no clock.
import type { EventRecord, ModuleRow, TsdbPoint } from '../../ports/store.js';
import type { EventPoints } from '../../ports/pipeline.js';

/** docs/timeseries.md#sending-points: a series id is 1 to 256 characters */
export const MAX_SERIES_ID = 256;
// RFC 3339 as Date.parse reads it, with a zone: `2026-11-27T03:00:00Z`, `...+09:00`, fractions allowed
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
// 9999-12-31T23:59:59.999Z: beyond it a timestamp is not a date anyone means
const MAX_TS = 253_402_300_799_999;

/** epoch milliseconds of a point's timestamp (RFC 3339 or epoch ms), or undefined */
export function pointTime(t: unknown): number | undefined {
  let ms: number;
  if (typeof t === 'number') ms = t;
  else if (typeof t === 'string' && RFC3339.test(t)) ms = Date.parse(t);
  else return undefined;
  if (!Number.isInteger(ms)) ms = Math.floor(ms);
  return ms >= 0 && ms <= MAX_TS ? ms : undefined;
}

/** the tsdb modules of the project that store this event type */
export function tsdbModulesFor(modules: ModuleRow[], eventType: string): ModuleRow[] {
  let out: ModuleRow[] | undefined;
  for (const m of modules) {
    if (m.moduleType === 'tsdb' && m.tsdb?.eventTypes.includes(eventType)) (out ??= []).push(m);
  }
  return out ?? [];
}

/** the points of an event of a home for each of `modules`; `timeSeriesData` must be an array */
export function eventPoints(projectId: number, homeId: number, modules: ModuleRow[], data: unknown[]): EventPoints {
  const points: TsdbPoint[] = [];
  let dropped = 0;
  for (const x of data) {
    const p = x as { seriesId?: unknown; timestamp?: unknown; value?: unknown } | null;
    const ts = p !== null && typeof p === 'object' ? pointTime(p.timestamp) : undefined;
    if (
      ts === undefined ||
      typeof p!.seriesId !== 'string' ||
      p!.seriesId.length === 0 ||
      p!.seriesId.length > MAX_SERIES_ID ||
      typeof p!.value !== 'number' ||
      !Number.isFinite(p!.value)
    ) {
      dropped++;
      continue;
    }
    for (const m of modules) points.push({ projectId, homeId, moduleId: m.id, seriesId: p!.seriesId, ts, value: p!.value });
  }
  return { points, dropped };
}

/** the points an event brings, or undefined when it brings none for any module (the common case, at the cost of a property read) */
export async function pointsOfEvent(
  modulesOf: (projectId: number) => ModuleRow[] | Promise<ModuleRow[]>,
  projectId: number,
  event: EventRecord,
): Promise<EventPoints | undefined> {
  const data = event.eventData.timeSeriesData;
  if (event.homeId === undefined || data === undefined) return undefined;
  const modules = tsdbModulesFor(await modulesOf(projectId), event.eventType);
  if (modules.length === 0) return undefined;
  if (!Array.isArray(data)) return { points: [], dropped: 1 };
  return eventPoints(projectId, event.homeId, modules, data);
}
