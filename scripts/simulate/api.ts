// The simulator's HTTP side: checks the key, then finds the devices it made before (by tag and
// name prefix) and creates the missing ones, with a project key, through the public API.
import { OptionsError } from './options.js';

export interface SimDevice {
  id: number;
  name: string;
  apiKey: string;
}

interface Api {
  url: string;
  key: string;
}

async function call(api: Api, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  let res: Response;
  try {
    res = await fetch(api.url + path, {
      method,
      headers: { authorization: `ModeCloud ${api.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new OptionsError(
      `cannot reach Hearth at ${api.url}: ${cause?.code ?? cause?.message ?? (e as Error).message} (is the server running? --url sets where)`,
    );
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed };
}

const reasonOf = (r: { status: number; body: any }) => `${r.status} ${r.body?.reason ?? ''}${r.body?.data ? ' ' + JSON.stringify(r.body.data) : ''}`.trim();

/** the key's project; a key that is not a project key is refused with the reason */
export async function checkKey(api: Api): Promise<number> {
  const r = await call(api, 'GET', '/auth');
  if (r.status === 401 || r.status === 403) throw new OptionsError(`the key was refused by ${api.url} (${reasonOf(r)}): pass a project API key with --key`);
  if (r.status !== 200) throw new OptionsError(`${api.url}/auth answered ${reasonOf(r)}: is --url a Hearth server?`);
  if (r.body?.type !== 'project key') {
    throw new OptionsError(
      `the key given is ${r.body?.type === 'nobody' ? 'unknown to' : `a ${r.body?.type} credential of`} ${api.url}: pass a project API key with --key`,
    );
  }
  return r.body.projectId as number;
}

/** devices <prefix>1..<prefix>n of the class and tag: those found, and the rest created */
export async function ensureDevices(
  api: Api,
  o: { projectId: number; deviceClass: string; prefix: string; tag: string; count: number; homeId?: number },
  onCreated: (n: number) => void = () => {},
  signal?: AbortSignal,
): Promise<SimDevice[]> {
  const byName = new Map<string, SimDevice & { homeId?: number }>();
  for (let skip = 0; !signal?.aborted; skip += 10_000) {
    const q = new URLSearchParams({ projectId: String(o.projectId), deviceClass: o.deviceClass, tag: o.tag, skip: String(skip), limit: '10000' });
    const r = await call(api, 'GET', `/devices?${q}`);
    if (r.status !== 200) throw new OptionsError(`listing the devices failed: ${reasonOf(r)}`);
    for (const d of r.body as { id: number; name?: string; apiKey?: string; homeId?: number }[]) {
      if (!d.name?.startsWith(o.prefix) || byName.has(d.name)) continue;
      if (!d.apiKey) throw new OptionsError(`the key cannot read device keys (device ${d.id}): use a project key with scope admin`);
      byName.set(d.name, { id: d.id, name: d.name, apiKey: d.apiKey, homeId: d.homeId });
    }
    if ((r.body as unknown[]).length < 10_000) break;
  }
  const out: SimDevice[] = [];
  let created = 0;
  // Ctrl-C stops between devices: those ready so far are returned (the summary counts them)
  for (let i = 1; i <= o.count && !signal?.aborted; i++) {
    const name = `${o.prefix}${i}`;
    const found = byName.get(name);
    let d: SimDevice;
    if (!found) {
      const r = await call(api, 'POST', '/devices', { projectId: o.projectId, deviceClass: o.deviceClass, name, tag: o.tag, homeId: o.homeId });
      if (r.status !== 200 && r.status !== 201) throw new OptionsError(`creating device ${name} failed: ${reasonOf(r)}`);
      d = { id: r.body.id, name, apiKey: r.body.apiKey };
      onCreated(++created);
    } else {
      // --home: a reused device elsewhere moves into the home (PATCH homeId, a project key's right)
      if (o.homeId !== undefined && found.homeId !== o.homeId) {
        const r = await call(api, 'PATCH', `/devices/${found.id}`, { homeId: o.homeId });
        if (r.status !== 200 && r.status !== 204) throw new OptionsError(`moving device ${name} into home ${o.homeId} failed: ${reasonOf(r)}`);
      }
      d = { id: found.id, name: found.name, apiKey: found.apiKey };
    }
    out.push(d);
  }
  return out;
}

/** what stops the sensor-gateway profile from working in this project, in words (warnings: it still runs) */
export async function sensorGatewayWarnings(api: Api, projectId: number, homeId: number | undefined): Promise<string[]> {
  const out: string[] = [];
  const project = await call(api, 'GET', `/projects/${projectId}`);
  if (project.status === 200 && project.body?.commandActions !== 'mode')
    out.push(
      `project ${projectId} refuses camelCase commands such as startDiscovery (commandActions is ${JSON.stringify(project.body?.commandActions)}): PATCH /projects/${projectId} {"commandActions":"mode"}`,
    );
  const modules = await call(api, 'GET', `/projects/${projectId}/smartModules`);
  if (modules.status === 200 && Array.isArray(modules.body) && !modules.body.some((m: { moduleType?: string }) => m.moduleType === 'tsdb'))
    out.push(
      `project ${projectId} has no tsdb smart module, so timeSeriesData points are not stored: POST /projects/${projectId}/smartModules {"id":"tsdb","moduleType":"tsdb"}`,
    );
  if (homeId === undefined) out.push('no --home: new devices are in no home, and points are stored only for devices in a home');
  return out;
}
