// --firmware: a simulated device follows firmware rollouts. On a `firmware-update`
// command it downloads each component's file with its own key, hashing as the bytes arrive (the
// file is never kept), checks the sha256, records the bundle (PUT /devices/{id}/bundle) and acks
// the command; a share of updates (--firmware-fail) fails instead and is acked with status error.
// Every third download is cut halfway and resumed with `Range`, as a device on a poor link does.
import { createHash } from 'node:crypto';
import type { Counters } from './counters.js';
import type { SimDevice } from './api.js';

export interface FirmwareOptions {
  /** the Hearth HTTP API: relative file URLs resolve against it, and only it gets the device's key */
  url: string;
  /** percent of updates that fail, 0 to 100 */
  failPercent: number;
}

interface Component {
  componentName: string;
  componentVersionName?: string;
  url?: string;
  sha256?: string;
  size?: number;
}

export interface FirmwareUpdate {
  rolloutId?: unknown;
  bundleId: string;
  components: Component[];
}

/** the parameters of a firmware-update command, or a reason they are not one */
export function parseUpdate(parameters: unknown): FirmwareUpdate | string {
  const p = parameters as Partial<FirmwareUpdate> | null;
  if (typeof p !== 'object' || p === null) return 'parameters are not an object';
  if (typeof p.bundleId !== 'string' || p.bundleId === '') return 'parameters.bundleId is missing';
  if (!Array.isArray(p.components)) return 'parameters.components is not a list';
  for (const c of p.components)
    if (typeof c !== 'object' || c === null || typeof (c as Component).componentName !== 'string') return 'a component has no componentName';
  return { rolloutId: p.rolloutId, bundleId: p.bundleId, components: p.components as Component[] };
}

/**
 * Which updates fail, spread evenly: the n-th update of the process fails when the running share
 * crosses a whole number, so 30 % of 10 devices is exactly 3 failures, whatever their order.
 */
export class FailShare {
  private n = 0;
  constructor(private readonly percent: number) {}
  next(): boolean {
    const before = Math.floor((this.n * this.percent) / 100);
    this.n++;
    return Math.floor((this.n * this.percent) / 100) > before;
  }
}

/** process-wide: which downloads are cut and resumed (every third, the first included) */
let downloads = 0;

class DownloadError extends Error {}

/**
 * One component's file, hashed as it streams in; when `cut`, the connection is dropped after half
 * the bytes and the rest is asked for with `Range: bytes=<n>-` and `If-Range: <etag>` (a 200
 * instead of 206 means the file changed or ranges are not served: the hash starts again).
 */
async function fetchFile(fileUrl: URL, headers: Record<string, string>, c: Component, cut: boolean, counters: Counters): Promise<string> {
  let hash = createHash('sha256');
  let got = 0;
  let etag: string | undefined;
  const first = new AbortController();
  const res = await fetch(fileUrl, { headers, signal: first.signal });
  if (res.status !== 200) throw new DownloadError(`GET ${fileUrl.pathname} answered ${res.status}${await reasonOf(res)}`);
  etag = res.headers.get('etag') ?? undefined;
  const total = Number(res.headers.get('content-length') ?? c.size ?? NaN);
  const stopAt = cut && Number.isFinite(total) && total >= 2 ? Math.floor(total / 2) : Infinity;
  const reader = res.body!.getReader();
  let complete = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      complete = true;
      break;
    }
    const take = got + value.byteLength > stopAt ? stopAt - got : value.byteLength;
    hash.update(value.subarray(0, take));
    got += take;
    if (got >= stopAt) {
      first.abort();
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  if (!complete) {
    counters.firmwareResumes++;
    const rest = await fetch(fileUrl, { headers: { ...headers, range: `bytes=${got}-`, ...(etag ? { 'if-range': etag } : {}) } });
    if (rest.status === 200) {
      hash = createHash('sha256');
      got = 0;
    } else if (rest.status !== 206) throw new DownloadError(`GET ${fileUrl.pathname} with Range answered ${rest.status}${await reasonOf(rest)}`);
    else {
      const from = /^bytes (\d+)-/.exec(rest.headers.get('content-range') ?? '')?.[1];
      if (Number(from) !== got)
        throw new DownloadError(`GET ${fileUrl.pathname} with Range bytes=${got}- answered Content-Range ${rest.headers.get('content-range')}`);
    }
    for await (const chunk of rest.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      got += chunk.byteLength;
    }
  }
  if (c.size !== undefined && got !== c.size) throw new DownloadError(`${c.componentName}: ${got} bytes received, ${c.size} announced`);
  return hash.digest('hex');
}

async function reasonOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const reason = JSON.parse(text)?.reason;
    return reason ? ` ${reason}` : '';
  } catch {
    return '';
  }
}

/** what the device answers on commandAck */
export interface FirmwareOutcome {
  status: 'ok' | 'error';
  result: Record<string, unknown>;
}

/** one update, start to end; never throws: a failure is the outcome acked with status error */
export async function applyUpdate(o: FirmwareOptions, device: SimDevice, update: FirmwareUpdate, fail: boolean, counters: Counters): Promise<FirmwareOutcome> {
  const api = new URL(o.url);
  try {
    for (const c of update.components) {
      if (!c.url) continue; // a file from elsewhere: the device has it
      const fileUrl = new URL(c.url, api);
      // the device's key goes only to the Hearth it belongs to, never to a file host elsewhere
      const headers: Record<string, string> = fileUrl.origin === api.origin ? { authorization: `ModeCloud ${device.apiKey}` } : {};
      const sha = await fetchFile(fileUrl, headers, c, downloads++ % 3 === 0, counters);
      counters.firmwareDownloads++;
      if (c.sha256 && sha !== c.sha256.replace(/^sha256:/, '')) throw new DownloadError(`${c.componentName}: sha256 ${sha} is not the announced ${c.sha256}`);
    }
    if (fail) {
      counters.firmwareFailed++;
      return { status: 'error', result: { error: 'install failed (simulated: --firmware-fail)', bundleId: update.bundleId } };
    }
    const r = await fetch(new URL(`/devices/${device.id}/bundle`, api), {
      method: 'PUT',
      headers: { authorization: `ModeCloud ${device.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bundleId: update.bundleId }),
    });
    if (r.status !== 204 && r.status !== 200) throw new DownloadError(`recording bundle ${update.bundleId} answered ${r.status}${await reasonOf(r)}`);
    counters.firmwareInstalled++;
    return { status: 'ok', result: { bundleId: update.bundleId } };
  } catch (e) {
    const message =
      e instanceof DownloadError
        ? e.message
        : `${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause?: Error }).cause!.message})` : ''}`;
    counters.firmwareFailed++;
    counters.error(`device ${device.id}: firmware update to ${update.bundleId} failed: ${message}`);
    return { status: 'error', result: { error: message, bundleId: update.bundleId } };
  }
}
