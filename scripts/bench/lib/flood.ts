// The flood of issue 13 F3, as an attacker holding one device key would send it: many sessions
// with clean session 0 and fresh client ids, each subscribing to thousands of filters under the
// device's own /devices/{id}/bulkData/<label>/response (allowed topics), then disconnecting and
// leaving the session behind. Used by `npm run bench -- flood` and by the flood test.
import mqtt from 'mqtt';

export interface FloodOptions {
  url: string;
  deviceId: number;
  key: string;
  sessions: number;
  filtersPerSession: number;
  /** label length: longer labels cost more per stored filter */
  labelChars?: number;
  /** filters per SUBSCRIBE packet (kept under the 256 KiB packet cap) */
  perPacket?: number;
  /** called after each session (e.g. to poll health) */
  afterSession?: (i: number) => Promise<void>;
}

export interface FloodFigures {
  sessions: number;
  /** sessions refused at CONNECT */
  refusedSessions: number;
  granted: number;
  refused: number;
}

export async function flood(o: FloodOptions): Promise<FloodFigures> {
  const labelChars = o.labelChars ?? 64;
  const perPacket = o.perPacket ?? 1000;
  const figures: FloodFigures = { sessions: 0, refusedSessions: 0, granted: 0, refused: 0 };
  for (let s = 0; s < o.sessions; s++) {
    const clientId = `flood${s}-${Math.random().toString(36).slice(2, 8)}`;
    let client: mqtt.MqttClient;
    try {
      client = await mqtt.connectAsync(o.url, {
        username: String(o.deviceId),
        password: o.key,
        clientId,
        clean: false,
        reconnectPeriod: 0,
        connectTimeout: 30_000,
      });
    } catch {
      figures.refusedSessions++;
      continue;
    }
    figures.sessions++;
    for (let from = 0; from < o.filtersPerSession; from += perPacket) {
      const map: Record<string, { qos: 1 }> = {};
      for (let i = from; i < Math.min(o.filtersPerSession, from + perPacket); i++) {
        const label = `${s}-${i}-`.padEnd(labelChars, 'x');
        map[`/devices/${o.deviceId}/bulkData/${label}/response`] = { qos: 1 };
      }
      let granted: number[];
      try {
        granted = (await client.subscribeAsync(map)).map((g) => g.qos);
      } catch (err) {
        // MQTT.js rejects the whole call when one filter is refused; the SUBACK is attached
        granted = (err as { packet?: { granted?: number[] } }).packet?.granted ?? [];
        if (!granted.length) throw err;
      }
      for (const g of granted) {
        if (g === 128) figures.refused++;
        else figures.granted++;
      }
    }
    await client.endAsync();
    await o.afterSession?.(s);
  }
  return figures;
}

/** heap and RSS after a full garbage collection, when the process may run one */
export async function settledMemory(): Promise<{ heapUsed: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}

export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
