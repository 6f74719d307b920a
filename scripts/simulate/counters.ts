// What the simulator counts, and how it shows it: a progress line redrawn every second on a
// terminal (plain lines every --interval seconds otherwise) and the summary at the end.

export class Counters {
  events = 0;
  data = 0;
  commandsReceived = 0;
  commandsAnswered = 0;
  kvReceived = 0;
  kvSet = 0;
  reconnects = 0;
  /** devices that connected at least once */
  everConnected = 0;
  drops = 0;
  errors = 0;
  /** --firmware: firmware-update commands taken, files downloaded (and of those resumed with Range), updates installed and failed */
  firmwareUpdates = 0;
  firmwareDownloads = 0;
  firmwareResumes = 0;
  firmwareInstalled = 0;
  firmwareFailed = 0;
  /** the first few error messages, for the summary */
  readonly firstErrors: string[] = [];

  error(message: string): void {
    this.errors++;
    if (this.firstErrors.length < 10) this.firstErrors.push(message);
  }
}

export interface Snapshot {
  devices: number;
  connected: number;
}

export function progressLine(c: Counters, s: Snapshot, eventsPerSecond: number, dataPerSecond: number): string {
  return (
    `connected ${s.connected}/${s.devices}  events/s ${eventsPerSecond.toFixed(1)}  data/s ${dataPerSecond.toFixed(1)}  ` +
    `commands answered ${c.commandsAnswered}/${c.commandsReceived}  kv in ${c.kvReceived} out ${c.kvSet}  ` +
    (c.firmwareUpdates ? `firmware installed ${c.firmwareInstalled} failed ${c.firmwareFailed} of ${c.firmwareUpdates}  ` : '') +
    `reconnects ${c.reconnects}  errors ${c.errors}`
  );
}

export function summaryOf(c: Counters, s: Snapshot, seconds: number) {
  return {
    devices: s.devices,
    connected: s.connected,
    seconds: Math.round(seconds * 10) / 10,
    /** events and data posts the broker acknowledged (PUBACK) */
    events: c.events,
    data: c.data,
    eventsPerSecond: seconds > 0 ? Math.round((c.events / seconds) * 10) / 10 : 0,
    commandsReceived: c.commandsReceived,
    commandsAnswered: c.commandsAnswered,
    kvReceived: c.kvReceived,
    kvSet: c.kvSet,
    reconnects: c.reconnects,
    drops: c.drops,
    errors: c.errors,
    firmwareUpdates: c.firmwareUpdates,
    firmwareDownloads: c.firmwareDownloads,
    firmwareResumes: c.firmwareResumes,
    firmwareInstalled: c.firmwareInstalled,
    firmwareFailed: c.firmwareFailed,
    firstErrors: c.firstErrors,
  };
}

export function summaryText(sum: ReturnType<typeof summaryOf>): string {
  const lines = [
    `simulated ${sum.devices} devices for ${sum.seconds} s (${sum.connected} connected at the end)`,
    `  events acknowledged   ${sum.events} (${sum.eventsPerSecond}/s)`,
    `  data posts            ${sum.data}`,
    `  commands answered     ${sum.commandsAnswered} of ${sum.commandsReceived} received`,
    `  kv messages           ${sum.kvReceived} received, ${sum.kvSet} sets sent`,
    `  reconnects / drops    ${sum.reconnects} / ${sum.drops}`,
    ...(sum.firmwareUpdates
      ? [
          `  firmware updates      ${sum.firmwareInstalled} installed, ${sum.firmwareFailed} failed of ${sum.firmwareUpdates} (${sum.firmwareDownloads} files, ${sum.firmwareResumes} resumed with Range)`,
        ]
      : []),
    `  errors                ${sum.errors}`,
    ...sum.firstErrors.map((e) => `    ${e}`),
  ];
  return lines.join('\n') + '\n';
}
