// Device simulator: `npm run simulate -- --devices 500 --rate 200`. Many devices against a Hearth
// server (local or remote) over MQTT or MQTT-over-WebSocket; `--help` for the options.
// Exit code 0 after the summary, 2 on a usage error, an unreachable server or a refused key.
import { checkKey, ensureDevices, sensorGatewayWarnings } from './simulate/api.js';
import { Counters, summaryOf, summaryText } from './simulate/counters.js';
import { BrokerUnreachable, runFleet } from './simulate/fleet.js';
import { OptionsError, USAGE, parseOptions } from './simulate/options.js';

async function main(argv: string[]): Promise<number> {
  let o;
  try {
    o = parseOptions(argv);
  } catch (e) {
    if (e instanceof OptionsError) return (process.stderr.write(`error: ${e.message}\n\n${USAGE}\n`), 2);
    throw e;
  }
  if (o === 'help') return (process.stdout.write(USAGE + '\n'), 0);
  const stop = new AbortController();
  // Ctrl-C: stop sending, wait for acknowledgements, print the summary; a second Ctrl-C quits
  process.once('SIGINT', () => {
    stop.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  process.once('SIGTERM', () => stop.abort());
  const started = performance.now();
  // Ctrl-C before the fleet runs (checking the key, creating devices) still ends with a summary
  const setupSummary = (ready: number) => {
    const sum = summaryOf(new Counters(), { devices: ready, connected: 0 }, (performance.now() - started) / 1000);
    process.stdout.write(o.json ? JSON.stringify(sum) + '\n' : `interrupted during setup: ${ready} of ${o.devices} devices ready\n` + summaryText(sum));
    return 130;
  };
  try {
    const projectId = await Promise.race([
      checkKey(o),
      new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(stop.signal.reason))),
    ]).catch((e) => {
      if (stop.signal.aborted) return undefined;
      throw e;
    });
    if (projectId === undefined) return setupSummary(0);
    if (o.projectId !== undefined && o.projectId !== projectId) throw new OptionsError(`the key belongs to project ${projectId}, not ${o.projectId}`);
    const log = (s: string) => !o.json && process.stderr.write(s);
    if (o.profile === 'sensor-gateway') for (const w of await sensorGatewayWarnings(o, projectId, o.home)) process.stderr.write(`warning: ${w}\n`);
    log(
      `devices: finding or creating ${o.devices} of class ${o.deviceClass} (tag ${o.tag}, names ${o.prefix}1..${o.prefix}${o.devices}${o.home === undefined ? '' : `, home ${o.home}`}) in project ${projectId}\n`,
    );
    const devices = await ensureDevices(
      o,
      { projectId, deviceClass: o.deviceClass, prefix: o.prefix, tag: o.tag, count: o.devices, homeId: o.home },
      (n) => {
        if (n % 50 === 0) log(`devices: ${n} created\n`);
      },
      stop.signal,
    );
    if (stop.signal.aborted) return setupSummary(devices.length);
    log(
      `connecting to ${o.mqtt} (${o.transport})${o.sourceAddresses ? ` from 127.0.0.1..127.0.0.${o.sourceAddresses}` : ''} at ${o.ramp}/s, sending ${o.rate} messages/s${o.duration ? ` for ${o.duration} s` : ' until Ctrl-C'}\n`,
    );
    await runFleet(o, devices, process.stdout, stop.signal);
    return 0;
  } catch (e) {
    if (e instanceof OptionsError || e instanceof BrokerUnreachable || (e as Error).message?.startsWith('the simulator needs'))
      return (process.stderr.write(`error: ${(e as Error).message}\n`), 2);
    throw e;
  }
}

process.exitCode = await main(process.argv.slice(2));
