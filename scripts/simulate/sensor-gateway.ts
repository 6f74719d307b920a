// `--profile sensor-gateway`: the device acts as MODE's sensor gateway (docs/timeseries.md#a-simulated-sensor-gateway).
// It answers MODE's camelCase commands with MODE's event names, and for every sensor module
// linked through its KV keys `sensorModule<id>` sends `timeSeriesData` points every module interval
// and `realtimeData` points every second, from a smooth random walk per sensor.
import type { SimDevice } from './api.js';

export const SENSOR_MODULE_PREFIX = 'sensorModule';
/** seconds between timeSeriesData events of a module whose KV value names no `interval` */
export const DEFAULT_INTERVAL_S = 10;
const REALTIME_MS = 1_000;
const SENSORS = ['TEMPERATURE:0', 'HUMIDITY:0'];

interface ModuleInfo {
  sensorModuleId: string;
  modelId: string;
  sensors: string[];
}

/** the two modules a gateway finds on discovery: ids `0101:<12 hex>` made from the device id, the same every run */
export function modulesOf(deviceId: number): ModuleInfo[] {
  return [0, 1].map((i) => ({ sensorModuleId: `0101:${(deviceId * 16 + i).toString(16).padStart(12, '0')}`, modelId: '0101', sensors: SENSORS }));
}

/** a sensor's walk: small steps pulled back towards its centre, so charts look like a room's air */
class Walk {
  private v: number;
  constructor(
    private readonly centre: number,
    private readonly spread: number,
    private readonly digits: number,
  ) {
    this.v = centre + (Math.random() - 0.5) * spread;
  }
  step(): number {
    this.v += (Math.random() - 0.5) * this.spread * 0.05 + (this.centre - this.v) * 0.02;
    return +this.v.toFixed(this.digits);
  }
  get value(): number {
    return +this.v.toFixed(this.digits);
  }
}

const walkFor = (sensor: string) => (sensor.startsWith('HUMIDITY') ? new Walk(45, 20, 1) : new Walk(21.5, 4, 2));
/** `TEMPERATURE:0` → `<moduleId>-temperature:0`, the series id MODE's sensor app reads */
const seriesIdOf = (moduleId: string, sensor: string) => `${moduleId}-${sensor.toLowerCase()}`;

export interface SensorGatewayIo {
  device: SimDevice;
  /** publishes an event (QoS 1); `answer` counts it as a command's answer */
  event(eventType: string, eventData: unknown, answer?: boolean): void;
  setKv(key: string, value: unknown): void;
}

export interface SensorGateway {
  /** true when the command is one of the gateway's (answered here) */
  command(action: unknown, parameters: unknown): boolean;
  /** the KV store changed (`reload` true for a full reload) */
  kvChanged(kv: ReadonlyMap<string, unknown>, reload: boolean): void;
  stop(): void;
}

interface Linked {
  id: string;
  value: Record<string, unknown>;
  sensors: string[];
  walks: Map<string, Walk>;
  timer?: NodeJS.Timeout;
  intervalS: number;
}

export function sensorGateway(io: SensorGatewayIo): SensorGateway {
  const own = modulesOf(io.device.id);
  const linked = new Map<string, Linked>();
  let selfLinked = false;
  let stopped = false;

  const points = (m: Linked, step: boolean) => {
    const timestamp = new Date().toISOString();
    return m.sensors.map((s) => {
      let w = m.walks.get(s);
      if (!w) m.walks.set(s, (w = walkFor(s)));
      return { seriesId: seriesIdOf(m.id, s), timestamp, value: step ? w.step() : w.value };
    });
  };
  const sensing = (m: Linked) => m.value.sensing !== 'off';
  const sendHistory = (m: Linked) => {
    if (sensing(m)) io.event('timeSeriesData', { timeSeriesData: points(m, false) });
  };

  // live values for every linked, sensing module: one realtimeData event a second
  const realtime = setInterval(() => {
    const live = [...linked.values()].filter(sensing).flatMap((m) => points(m, true));
    if (live.length) io.event('realtimeData', { timeSeriesData: live });
  }, REALTIME_MS);

  function link(id: string, raw: unknown) {
    const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
    const interval = typeof value.interval === 'number' && value.interval >= 1 ? value.interval : DEFAULT_INTERVAL_S;
    const sensors = Array.isArray(value.sensors) && value.sensors.every((s) => typeof s === 'string') ? (value.sensors as string[]) : SENSORS;
    const old = linked.get(id);
    if (old && old.intervalS === interval && JSON.stringify(old.sensors) === JSON.stringify(sensors)) {
      old.value = value;
      return;
    }
    if (old) clearInterval(old.timer);
    const m: Linked = { id, value, sensors, walks: old?.walks ?? new Map(), intervalS: interval };
    m.timer = setInterval(() => sendHistory(m), interval * 1000);
    linked.set(id, m);
    // a first point at once, so a new module's series are listed without waiting an interval
    sendHistory(m);
  }

  function unlink(id: string) {
    clearInterval(linked.get(id)?.timer);
    linked.delete(id);
  }

  const listed = () => [...linked.values()].map((m) => ({ sensorModuleId: m.id, modelId: m.id.split(':')[0], sensors: m.sensors, ...m.value }));

  return {
    command(action, parameters) {
      const p = typeof parameters === 'object' && parameters !== null ? (parameters as Record<string, unknown>) : {};
      switch (action) {
        case 'startDiscovery':
          io.event('discoveredSensorModules', { sensorModules: own }, true);
          return true;
        case 'listSensorModules':
          io.event('sensorModuleList', { sensorModules: listed() }, true);
          return true;
        case 'getSensorModuleStatus': {
          const id = typeof p.sensorModuleId === 'string' ? p.sensorModuleId : undefined;
          const m = id === undefined ? undefined : linked.get(id);
          const status = m
            ? {
                sensorModuleId: m.id,
                linked: true,
                sensing: sensing(m),
                interval: m.intervalS,
                values: Object.fromEntries(points(m, false).map((x) => [x.seriesId, x.value])),
              }
            : { sensorModuleId: id ?? null, linked: false, error: id === undefined ? 'parameters.sensorModuleId is missing' : 'no such module is linked' };
          io.event('sensorModuleStatus', status, true);
          return true;
        }
        case 'syncClock':
          io.event('clockSynced', { time: new Date().toISOString(), requested: p.timestamp ?? p.time ?? null }, true);
          return true;
        default:
          return false;
      }
    },
    kvChanged(kv, reload) {
      if (stopped) return;
      const keys = new Set<string>();
      for (const [key, value] of kv) {
        if (!key.startsWith(SENSOR_MODULE_PREFIX) || key.length === SENSOR_MODULE_PREFIX.length) continue;
        const id = key.slice(SENSOR_MODULE_PREFIX.length);
        keys.add(id);
        link(id, value);
      }
      for (const id of [...linked.keys()]) if (!keys.has(id)) unlink(id);
      // out of the box: a gateway with no module links its first one itself, once a run, through
      // its KV (as MODE's app would), so the series appear without an app
      if (reload && !selfLinked && keys.size === 0) {
        selfLinked = true;
        const m = own[0];
        const value = { id: m.sensorModuleId, name: `${io.device.name} sensor`, sensing: 'on', interval: DEFAULT_INTERVAL_S, sensors: m.sensors };
        io.setKv(SENSOR_MODULE_PREFIX + m.sensorModuleId, value);
        link(m.sensorModuleId, value);
      } else if (reload) selfLinked = true;
    },
    stop() {
      stopped = true;
      clearInterval(realtime);
      for (const id of [...linked.keys()]) unlink(id);
    },
  };
}
