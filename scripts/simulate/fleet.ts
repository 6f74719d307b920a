// The fleet: connects the devices at --ramp per second, spreads --rate messages per second over
// the connected ones (a tick every 50 ms carries the fractional remainder forward), sets a KV key
// now and then, reports progress, and ends on --duration or Ctrl-C with a summary.
import { sourceAddress, type SimOptions } from './options.js';
import type { SimDevice } from './api.js';
import { Counters, progressLine, summaryOf, summaryText } from './counters.js';
import { simulateDevice, type FirmwareFollow, type SimulatedDevice } from './device.js';
import { FailShare } from './firmware.js';

const TICK_MS = 50;
const BROKER_PATIENCE_MS = 10_000;

export class BrokerUnreachable extends Error {
  override name = 'BrokerUnreachable';
}

export async function runFleet(o: SimOptions, devices: SimDevice[], out: { write(s: string): void }, signal: AbortSignal) {
  let mqtt: typeof import('mqtt');
  try {
    mqtt = await import('mqtt');
  } catch {
    throw new Error('the simulator needs MQTT.js, a development dependency: run `npm install` (without --omit=dev)');
  }
  const c = new Counters();
  const firmware: FirmwareFollow | undefined = o.firmware
    ? { options: { url: o.url, failPercent: o.firmwareFail }, share: new FailShare(o.firmwareFail) }
    : undefined;
  const sims: SimulatedDevice[] = [];
  const started = performance.now();
  const tty = process.stdout.isTTY === true && !o.json;
  const snapshot = () => ({ devices: devices.length, connected: sims.reduce((n, s) => n + (s.connected ? 1 : 0), 0) });

  // ramp: a batch of connections every tick, at --ramp per second
  let next = 0;
  let rampCredit = 0;
  let sendCredit = 0;
  let kvCredit = 0;
  let seq = 0;
  let cursor = 0;
  const tick = setInterval(() => {
    rampCredit += (o.ramp * TICK_MS) / 1000;
    while (rampCredit >= 1 && next < devices.length) {
      const local = o.sourceAddresses === undefined ? undefined : sourceAddress(next, o.sourceAddresses);
      sims.push(simulateDevice(mqtt, o.mqtt, devices[next++], c, local, firmware, o.profile));
      rampCredit--;
    }
    if (next >= devices.length) rampCredit = 0;
    const live = sims.filter((s) => s.connected);
    if (live.length === 0) return;
    sendCredit += (o.rate * TICK_MS) / 1000;
    while (sendCredit >= 1) {
      sendCredit--;
      seq++;
      const kind = Math.random() < o.dataShare ? 'data' : 'event';
      live[cursor++ % live.length].publish(kind, seq);
    }
    kvCredit += (o.kvRate * TICK_MS) / 1000;
    while (kvCredit >= 1) {
      kvCredit--;
      live[Math.floor(Math.random() * live.length)].setKv('sim:lastSeen', new Date().toISOString());
    }
  }, TICK_MS);

  // progress: rates over the last second
  let last = { at: performance.now(), events: 0, data: 0 };
  let lastPrinted = 0;
  const progress = setInterval(() => {
    const now = performance.now();
    const dt = (now - last.at) / 1000;
    const line = progressLine(c, snapshot(), (c.events - last.events) / dt, (c.data - last.data) / dt);
    last = { at: now, events: c.events, data: c.data };
    if (tty) out.write(`\r\x1b[2K${line}`);
    else if (!o.json && now - lastPrinted >= o.interval * 1000 - 10) {
      lastPrinted = now;
      out.write(line + '\n');
    }
  }, 1000);

  // a broker nobody can reach ends the run with its reason instead of counting errors forever
  let unreachable: string | undefined;
  await new Promise<void>((resolve) => {
    const watch = setInterval(() => {
      if (c.everConnected === 0 && c.errors > 0 && performance.now() - started > BROKER_PATIENCE_MS) {
        unreachable = `no device could connect to ${o.mqtt} in ${BROKER_PATIENCE_MS / 1000} s: ${c.firstErrors[0]} (--mqtt sets the broker URL)`;
        done();
      }
    }, 500);
    const done = () => {
      clearTimeout(timer);
      clearInterval(watch);
      resolve();
    };
    const timer = o.duration === undefined ? undefined : setTimeout(done, o.duration * 1000);
    signal.addEventListener('abort', done);
  });
  clearInterval(tick);
  clearInterval(progress);
  const seconds = (performance.now() - started) / 1000;
  const final = snapshot();
  // what was published gets its PUBACK before the connections close
  await Promise.all(sims.map((s) => s.end().catch(() => {})));
  const summary = summaryOf(c, final, seconds);
  if (tty) out.write('\n');
  if (unreachable) throw new BrokerUnreachable(unreachable);
  out.write(o.json ? JSON.stringify(summary) + '\n' : summaryText(summary));
  return summary;
}
