// The console's only way to the service: Hearth's public HTTP API, with the credential in the
// Authorization header (never a cookie). The credential lives in sessionStorage: it survives a
// reload of the tab, not the tab itself; sign-out removes it.
export interface Session {
  token: string;
  kind: 'user' | 'project key';
  projectId: number;
  /** what GET /auth said: user id or key name */
  who: string;
}

const STORAGE = 'hearth.console.session';

export function loadSession(): Session | undefined {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORAGE) ?? 'null');
    return s && typeof s.token === 'string' ? (s as Session) : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(s: Session | undefined): void {
  if (s) sessionStorage.setItem(STORAGE, JSON.stringify(s));
  else sessionStorage.removeItem(STORAGE);
}

/** an error answer of the API: its reason, in words for a person, and its data */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly data: Record<string, unknown> | undefined,
  ) {
    super(describe(reason, data, status));
  }
}

const WORDS: Record<string, string> = {
  AUTHORIZATION_REQUIRED: 'Sign in first.',
  INVALID_TOKEN: 'The credential is not valid (expired, revoked or mistyped).',
  PERMISSION_DENIED: 'This credential is not allowed to do that.',
  INVALID_PARAMETERS: 'Some values are not valid',
  MISSING_PARAMETERS: 'Some required values are missing',
  INVALID_JSON: 'The body is not valid JSON.',
  BODY_TOO_LARGE: 'The request is too large.',
  READ_ONLY_FIELD: 'A read-only field cannot be changed',
  UNKNOWN_DEVICE_CLASS: 'There is no device class of that name in this project.',
  DEVICE_OFFLINE:
    'The device is offline: a command reaches only a device with a live MQTT or WebSocket connection, and is not queued. Try again once it connects.',
  DEVICE_NOT_CLAIMABLE: 'No device with that claim code is claimable now.',
  DEVICE_ALREADY_IN_HOME: 'The device is already in a home.',
  BLOCKING_LOG_REQUEST: 'The device already has an open log request.',
  NOT_FOUND: 'Not found.',
  DEVICE_NOT_FOUND: 'No such device (or you may not see it).',
  KEY_NOT_FOUND: 'No such key.',
  REQUEST_NOT_FOUND: 'No such log request.',
  BUNDLE_NOT_FOUND: 'No such bundle.',
  INVALID_STATE: 'That cannot be done in the present state.',
  MODULE_NOT_FOUND: 'No such module.',
  HOME_NOT_FOUND: 'No such home.',
  METHOD_NOT_ALLOWED: 'This server does not offer that operation.',
  DEVICE_IN_USE: 'The device is busy (a log upload is in progress).',
  KEY_IN_USE: 'The service holds this key; it cannot be removed by hand.',
  REQUEST_IN_USE: 'The log request is being uploaded.',
  RATE_LIMITED: 'Too many requests; wait a moment',
  INTERNAL_ERROR: 'The service failed; the request id is in its log.',
  SERVICE_UNAVAILABLE: 'The service cannot reach its database or bus right now.',
};

function describe(reason: string, data: Record<string, unknown> | undefined, status: number): string {
  // a mailed account code is not a credential: its own words say what to do (docs/concepts.md#accounts)
  if (reason === 'INVALID_TOKEN' && data?.credential === 'code' && typeof data.message === 'string')
    return `${data.message.charAt(0).toUpperCase()}${data.message.slice(1)}.`;
  const words = WORDS[reason] ?? `${reason.toLowerCase().replace(/_/g, ' ')} (${status})`;
  const issues = Array.isArray(data?.issues) ? (data!.issues as { path?: string; message?: string }[]) : [];
  if (issues.length) return `${words}: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`;
  if (reason === 'READ_ONLY_FIELD' && Array.isArray(data?.fields)) return `${words}: ${(data!.fields as string[]).join(', ')}`;
  if (reason === 'RATE_LIMITED' && data?.retryAfter) return `${words} (${data.retryAfter} s).`;
  if (typeof data?.message === 'string') return `${words} ${data.message}`;
  return words;
}

export interface Page<T> {
  items: T[];
  /** from the range header: `first-last/total` */
  total: number;
}

type Listener = () => void;
const expiredListeners = new Set<Listener>();
/** called when the API says the credential is no longer good: the console returns to sign-in */
export const onExpired = (l: Listener) => (expiredListeners.add(l), () => expiredListeners.delete(l));

let current: Session | undefined = loadSession();
export const session = () => current;
export function setSession(s: Session | undefined): void {
  current = s;
  saveSession(s);
}

export async function request<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  token = current?.token,
): Promise<{ status: number; body: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `ModeCloud ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', { message: `The service cannot be reached (${(err as Error).message}).` });
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  if (!res.ok) {
    const e = (parsed ?? {}) as { reason?: string; data?: Record<string, unknown> };
    const err = new ApiError(res.status, e.reason ?? `HTTP_${res.status}`, e.data);
    if (res.status === 401 && token && token === current?.token) for (const l of expiredListeners) l();
    throw err;
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/**
 * a file sent as the raw body (`application/octet-stream`) with its upload progress: fetch cannot
 * report how much of a request body has gone out, XMLHttpRequest's upload events can
 */
export function upload<T = unknown>(path: string, file: Blob, onProgress: (sent: number, total: number) => void, method = 'PUT'): Promise<T> {
  const token = current?.token;
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    if (token) xhr.setRequestHeader('authorization', `ModeCloud ${token}`);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', { message: 'The upload was cut off before the service answered.' }));
    xhr.onabort = () => reject(new ApiError(0, 'NETWORK', { message: 'The upload was cancelled.' }));
    xhr.onload = () => {
      let parsed: unknown = undefined;
      try {
        parsed = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        parsed = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(parsed as T);
      const e = (parsed ?? {}) as { reason?: string; data?: Record<string, unknown> };
      if (xhr.status === 401 && token && token === current?.token) for (const l of expiredListeners) l();
      reject(new ApiError(xhr.status, e.reason ?? `HTTP_${xhr.status}`, e.data));
    };
    xhr.send(file);
  });
}

export const get = async <T>(path: string) => (await request<T>('GET', path)).body;

/** a single-use ticket, valid seconds, to open a WebSocket as the session without its token in the URL (docs/api.md#stream-tickets) */
export const streamTicket = async () => (await request<{ ticket: string }>('POST', '/auth/ticket')).body.ticket;
export const send = async <T = unknown>(method: string, path: string, body?: unknown) => (await request<T>(method, path, body)).body;

/** a list with its total, from the range header `vnd.tinkermode.range: first-last/total` (total 0 when empty) */
export async function list<T>(path: string, skip = 0, limit = 50): Promise<Page<T>> {
  const sep = path.includes('?') ? '&' : '?';
  const r = await request<T[]>('GET', `${path}${sep}skip=${skip}&limit=${limit}`);
  const range = r.headers.get('vnd.tinkermode.range') ?? '';
  const total = Number(range.split('/')[1]);
  return { items: r.body ?? [], total: Number.isFinite(total) ? total : (r.body ?? []).length };
}

/** query string from the defined, non-empty values */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** a download the API serves behind the Authorization header, saved through an object URL */
export async function download(path: string, filename: string): Promise<void> {
  const res = await fetch(path, { headers: { authorization: `ModeCloud ${current?.token ?? ''}` } });
  if (!res.ok) {
    const e = await res.json().catch(() => ({}));
    throw new ApiError(res.status, e.reason ?? `HTTP_${res.status}`, e.data);
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
