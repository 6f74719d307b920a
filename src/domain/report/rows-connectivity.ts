// `connectivity` report: for each device (filter: homeId, deviceClass), how long it was connected
// during the window, from the `_deviceConnected_` / `_deviceDisconnected_` system events (
// docs/devices.md#mqtt). The state at the window's start is the one the last such event before it left. A device
// may hold several connections (MQTT and WebSocket): it counts as connected while at least one is
// open, so connects and disconnects are counted, not toggled.
import type { ReportFilter, Store, TimeCursor } from '../../ports/store.js';
import { PAGE, type ReportTable, type Row, type Window } from './table.js';

export const CONNECTIVITY_COLUMNS = [
  'deviceId',
  'name',
  'deviceClass',
  'homeId',
  'connectedSeconds',
  'connectedPercent',
  'connects',
  'disconnects',
  'connectedAtEnd',
] as const;

const CONNECTED = '_deviceConnected_';
const DISCONNECTED = '_deviceDisconnected_';

interface Track {
  open: number;
  upSince: number;
  connectedMs: number;
  connects: number;
  disconnects: number;
}

/** replays the window's connectivity events over each device's initial state */
async function trackAll(store: Pick<Store, 'reportData'>, projectId: number, w: Window): Promise<Map<number, Track>> {
  const start = Date.parse(w.since);
  const tracks = new Map<number, Track>();
  const track = (id: number) => {
    let t = tracks.get(id);
    if (!t) tracks.set(id, (t = { open: 0, upSince: start, connectedMs: 0, connects: 0, disconnects: 0 }));
    return t;
  };
  for (const s of await store.reportData.lastConnectivity(projectId, w.since)) {
    if (s.lastConnect && (!s.lastDisconnect || s.lastConnect > s.lastDisconnect)) track(s.deviceId).open = 1;
  }
  let after: TimeCursor | null = null;
  for (;;) {
    const page = await store.reportData.events({ projectId, ...w, eventTypes: [CONNECTED, DISCONNECTED] }, after, PAGE);
    for (const { event: e } of page) {
      if (e.originDeviceId === undefined) continue;
      const t = track(e.originDeviceId);
      const at = Date.parse(e.timestamp);
      if (e.eventType === CONNECTED) {
        t.connects++;
        if (t.open++ === 0) t.upSince = at;
      } else {
        t.disconnects++;
        // a disconnect without a known connect (before retention) closes nothing
        if (t.open > 0 && --t.open === 0) t.connectedMs += at - t.upSince;
      }
    }
    if (page.length < PAGE) break;
    const last = page[page.length - 1];
    after = { time: last.event.timestamp, id: last.id };
  }
  const end = Date.parse(w.until);
  for (const t of tracks.values()) if (t.open > 0) t.connectedMs += end - t.upSince;
  return tracks;
}

export function connectivityRows(store: Pick<Store, 'reportData'>, projectId: number, f: ReportFilter, w: Window): ReportTable {
  async function* rows(): AsyncIterable<Row> {
    const tracks = await trackAll(store, projectId, w);
    const windowMs = Date.parse(w.until) - Date.parse(w.since);
    let after = 0;
    for (;;) {
      const page = await store.reportData.devices({ projectId, homeId: f.homeId, deviceClass: f.deviceClass }, after, PAGE);
      for (const d of page) {
        const t = tracks.get(d.id);
        const ms = t?.connectedMs ?? 0;
        yield {
          deviceId: d.id,
          name: d.name,
          deviceClass: d.deviceClass,
          homeId: d.homeId,
          connectedSeconds: Math.round(ms / 1000),
          connectedPercent: windowMs > 0 ? Math.round((ms / windowMs) * 10000) / 100 : 0,
          connects: t?.connects ?? 0,
          disconnects: t?.disconnects ?? 0,
          connectedAtEnd: (t?.open ?? 0) > 0,
        };
      }
      if (page.length < PAGE) return;
      after = page[page.length - 1].id;
    }
  }
  return { columns: CONNECTIVITY_COLUMNS, rows: rows() };
}
