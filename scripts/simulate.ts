// Device simulator: `npm run simulate -- --devices 500 --rate 200`. Many devices against a Hearth
// server (local or remote) over MQTT or MQTT-over-WebSocket; `--help` for the options.
// Exit code 0 after the summary, 2 on a usage error, an unreachable server or a refused key.
import { checkKey, ensureDevices } from './simulate/api.js';
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
  try {
    const projectId = await checkKey(o);
    if (o.projectId !== undefined && o.projectId !== projectId) throw new OptionsError(`the key belongs to project ${projectId}, not ${o.projectId}`);
    const log = (s: string) => !o.json && process.stderr.write(s);
    log(
      `devices: finding or creating ${o.devices} of class ${o.deviceClass} (tag ${o.tag}, names ${o.prefix}1..${o.prefix}${o.devices}) in project ${projectId}\n`,
    );
    const devices = await ensureDevices(o, { projectId, deviceClass: o.deviceClass, prefix: o.prefix, tag: o.tag, count: o.devices }, (n) => {
      if (n % 50 === 0) log(`devices: ${n} created\n`);
    });
    if (stop.signal.aborted) return 130;
    log(`connecting to ${o.mqtt} (${o.transport}) at ${o.ramp}/s, sending ${o.rate} messages/s${o.duration ? ` for ${o.duration} s` : ' until Ctrl-C'}\n`);
    await runFleet(o, devices, process.stdout, stop.signal);
    return 0;
  } catch (e) {
    if (e instanceof OptionsError || e instanceof BrokerUnreachable || (e as Error).message?.startsWith('the simulator needs'))
      return (process.stderr.write(`error: ${(e as Error).message}\n`), 2);
    throw e;
  }
}

process.exitCode = await main(process.argv.slice(2));
