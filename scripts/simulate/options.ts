// The simulator's command line (node:util parseArgs) and its defaults.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface SimOptions {
  url: string;
  key: string;
  mqtt: string;
  transport: 'mqtt' | 'ws';
  devices: number;
  /** messages per second over the whole fleet (events and data posts) */
  rate: number;
  /** the share of those messages that are data posts (`/devices/{id}/data`) */
  dataShare: number;
  deviceClass: string;
  projectId?: number;
  prefix: string;
  tag: string;
  /** the home the devices join (created in it, or moved into it) */
  home?: number;
  /** spread connections over 127.0.0.1..127.0.0.N as local addresses (one process's port range per address) */
  sourceAddresses?: number;
  /** seconds; undefined: until Ctrl-C */
  duration?: number;
  /** new connections per second */
  ramp: number;
  /** KV sets per second over the whole fleet */
  kvRate: number;
  /** seconds between plain progress lines when stdout is not a terminal */
  interval: number;
  json: boolean;
  /** follow rollouts: firmware-update commands are downloaded, checked and recorded */
  firmware: boolean;
  /** percent of firmware updates that fail (acked with status error) */
  firmwareFail: number;
  /** what each device acts as: the generic device, or MODE's sensor gateway (scripts/simulate/sensor-gateway.ts) */
  profile: 'default' | 'sensor-gateway';
}

export class OptionsError extends Error {
  override name = 'OptionsError';
}

export const USAGE = `usage: npm run simulate -- [options]

Simulated devices against a Hearth server: creates (or reuses) devices of a class, connects them
over MQTT or MQTT-over-WebSocket, sends events and data at the given total rate, answers commands
and keeps their KV stores in sync. Progress every second; a summary on Ctrl-C or at --duration.

  --devices <n>        devices to simulate (default 10)
  --rate <n>           messages per second over the whole fleet (default 10)
  --data-share <0..1>  share of messages that are data posts, the rest events (default 0.2)
  --url <url>          Hearth HTTP API (default http://127.0.0.1:8080)
  --key <key>          project API key (default: the contents of ./data/admin.key)
  --mqtt <url>         broker URL (default: the API's host on port 1883, or ws://<api>/mqtt for --transport ws)
  --transport mqtt|ws  MQTT over TCP, or over WebSocket (default mqtt)
  --class <class>      device class (default default)
  --project <id>       project (default: the key's project)
  --prefix <text>      device name prefix; devices <prefix>1..<prefix>n are reused (default sim-)
  --tag <text>         tag set on the simulator's devices, to find them again (default simulator)
  --home <id>          the devices join this home: created in it, or moved into it when reused
  --source-addresses <n>
                       spread the connections over the local addresses 127.0.0.1..127.0.0.<n>
                       (1 to 254), for fleets above what one address's ports allow; the broker
                       must then be on loopback (127.x.x.x or localhost)
  --duration <s>       stop after this many seconds (default: run until Ctrl-C)
  --ramp <n>           new connections per second (default 50)
  --kv-rate <n>        KV sets per second over the fleet (default 0.2)
  --interval <s>       seconds between progress lines when not on a terminal (default 5)
  --firmware           follow firmware rollouts: on a firmware-update command, download each
                       component's file (every third download is cut halfway and resumed with
                       Range), check its sha256, record the bundle and ack the command
  --firmware-fail <percent>
                       with --firmware: this share of updates fails, acked with status error
                       (spread evenly: 30 over 10 devices fails exactly 3; default 0)
  --json               print the summary as JSON
  --profile <name>     what each device acts as: default, or sensor-gateway (MODE's sensor
                       gateway, below; --rate and --kv-rate then default to 0)
  -h, --help           this text

Each device publishes events {eventType: "simTick", eventData: {seq}} and data posts
{data: [{temperature, humidity}]}. On a command it publishes the event "commandAnswered"
{action, parameters, kvRev, kv} (its KV store as it holds it); a command of the outbox (it
carries an id) is also acked on /devices/{id}/commandAck, with status "error" when its
parameters say {"fail": true}. It sets the KV key
"sim:lastSeen" now and then.

With --profile sensor-gateway each device acts as MODE's sensor gateway (docs/timeseries.md):
it answers startDiscovery (event "discoveredSensorModules", two modules 0101:<12 hex>),
listSensorModules ("sensorModuleList"), getSensorModuleStatus {sensorModuleId}
("sensorModuleStatus") and syncClock ("clockSynced"); for each module linked through its KV key
"sensorModule<id>" (it links its first module itself when it has none) it sends
"timeSeriesData" points every module interval (the KV value's "interval", default 10 s) and
"realtimeData" every second, series "<moduleId>-temperature:0" and "<moduleId>-humidity:0".
These camelCase commands need a project whose setting commandActions is "mode"; the series are
stored by a tsdb smart module for devices in a home (--home); it warns at start when either
is missing.`;

const num = (raw: string | undefined, name: string, dflt: number, check: (n: number) => boolean, expect: string) => {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) throw new OptionsError(`--${name} must be ${expect}, got ${JSON.stringify(raw)}`);
  return n;
};

export function parseOptions(argv: string[], cwd = process.cwd()): SimOptions | 'help' {
  let p;
  try {
    p = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        devices: { type: 'string' },
        rate: { type: 'string' },
        'data-share': { type: 'string' },
        url: { type: 'string' },
        key: { type: 'string' },
        mqtt: { type: 'string' },
        transport: { type: 'string' },
        class: { type: 'string' },
        project: { type: 'string' },
        prefix: { type: 'string' },
        tag: { type: 'string' },
        home: { type: 'string' },
        'source-addresses': { type: 'string' },
        duration: { type: 'string' },
        ramp: { type: 'string' },
        'kv-rate': { type: 'string' },
        interval: { type: 'string' },
        json: { type: 'boolean' },
        firmware: { type: 'boolean' },
        'firmware-fail': { type: 'string' },
        profile: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    throw new OptionsError((e as Error).message);
  }
  const v = p.values;
  if (v.help) return 'help';
  const transport = v.transport ?? 'mqtt';
  if (transport !== 'mqtt' && transport !== 'ws') throw new OptionsError(`--transport must be mqtt or ws, got ${JSON.stringify(transport)}`);
  const url = (v.url ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  let api: URL;
  try {
    api = new URL(url);
    if (api.protocol !== 'http:' && api.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new OptionsError(`--url must be an http(s) URL, got ${JSON.stringify(url)}`);
  }
  const profile = v.profile ?? 'default';
  if (profile !== 'default' && profile !== 'sensor-gateway')
    throw new OptionsError(`--profile must be default or sensor-gateway, got ${JSON.stringify(profile)}`);
  // a sensor gateway's own traffic is its sensors'; the generic events and KV sets stay off unless asked for
  const quiet = profile === 'sensor-gateway' ? 0 : undefined;
  const int = (n: number) => Number.isInteger(n) && n >= 1;
  const pos = (n: number) => n > 0;
  const o: SimOptions = {
    url,
    key: '',
    mqtt: v.mqtt ?? defaultBroker(api, transport),
    transport,
    devices: num(v.devices, 'devices', 10, (n) => int(n) && n <= 100_000, 'a whole number from 1 to 100000'),
    rate: num(v.rate, 'rate', quiet ?? 10, (n) => n >= 0, 'a number of messages per second (0 or more)'),
    dataShare: num(v['data-share'], 'data-share', 0.2, (n) => n >= 0 && n <= 1, 'a number from 0 to 1'),
    deviceClass: v.class ?? 'default',
    projectId: v.project === undefined ? undefined : num(v.project, 'project', 0, int, 'a project id'),
    prefix: v.prefix ?? 'sim-',
    tag: v.tag ?? 'simulator',
    home: v.home === undefined ? undefined : num(v.home, 'home', 0, int, 'a home id'),
    sourceAddresses:
      v['source-addresses'] === undefined
        ? undefined
        : num(v['source-addresses'], 'source-addresses', 1, (n) => int(n) && n <= 254, 'a whole number from 1 to 254'),
    duration: v.duration === undefined ? undefined : num(v.duration, 'duration', 0, pos, 'a number of seconds'),
    ramp: num(v.ramp, 'ramp', 50, pos, 'a number of connections per second'),
    kvRate: num(v['kv-rate'], 'kv-rate', quiet ?? 0.2, (n) => n >= 0, 'a number of KV sets per second (0 or more)'),
    interval: num(v.interval, 'interval', 5, pos, 'a number of seconds'),
    json: v.json === true,
    firmware: v.firmware === true,
    firmwareFail: num(v['firmware-fail'], 'firmware-fail', 0, (n) => n >= 0 && n <= 100, 'a percent from 0 to 100'),
    profile,
  };
  if (v['firmware-fail'] !== undefined && !o.firmware) throw new OptionsError('--firmware-fail needs --firmware (the devices follow rollouts only with it)');
  if (o.sourceAddresses !== undefined) checkLoopback(o.mqtt);
  // last: a bad number is reported before a missing key file
  o.key = v.key ?? readKeyFile(cwd);
  return o;
}

function readKeyFile(cwd: string): string {
  try {
    const key = readFileSync(`${cwd}/data/admin.key`, 'utf8').trim();
    if (key) return key;
  } catch {
    // explained below
  }
  throw new OptionsError('no --key given and no ./data/admin.key here: pass a project API key with --key (the first start of the server prints one)');
}

/** local addresses 127.0.0.x only reach a broker on loopback */
function checkLoopback(broker: string): void {
  let host: string;
  try {
    host = new URL(broker).hostname;
  } catch {
    throw new OptionsError(`--mqtt must be a URL, got ${JSON.stringify(broker)}`);
  }
  if (host !== 'localhost' && !/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) {
    throw new OptionsError(
      `--source-addresses uses the local addresses 127.0.0.x, which only reach a broker on this machine's loopback; the broker is ${host} (run the simulator beside the broker, or drop --source-addresses)`,
    );
  }
}

/** the n-th connection's local address: 127.0.0.1..127.0.0.<count>, round robin */
export function sourceAddress(n: number, count: number): string {
  return `127.0.0.${1 + (n % count)}`;
}

/** the broker beside the API: port 1883 on the same host, or the API's own /mqtt path over WebSocket */
function defaultBroker(api: URL, transport: 'mqtt' | 'ws'): string {
  if (transport === 'ws') return `${api.protocol === 'https:' ? 'wss' : 'ws'}://${api.host}/mqtt`;
  return `mqtt://${api.hostname}:1883`;
}
