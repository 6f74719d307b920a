// Ids of projects, homes, users and devices are positive integers (docs/api.md#conventions), and
// fit an SQL `integer`: PostgreSQL refuses a larger parameter with an error, not a miss, so a
// larger number is refused here, before any lookup. One pattern and one parser for the HTTP
// routes, the broker (MQTT user names, WebSocket paths) and the domain's query schemas.
import { AppError, type Reason } from './errors.js';

export const MAX_ID = 2147483647;

/** decimal, no sign, no leading zero, at most the 10 digits of MAX_ID (which parseId checks) */
export const ID_PATTERN = /^[1-9]\d{0,9}$/;

/** the id a path segment, query value or user name names, else undefined */
export function parseId(raw: string | undefined): number | undefined {
  if (raw === undefined || !ID_PATTERN.test(raw)) return undefined;
  const n = Number(raw);
  return n <= MAX_ID ? n : undefined;
}

/**
 * parseId, or `notFound` (e.g. DEVICE_NOT_FOUND with `{deviceId: raw}`): a text that is not an
 * id names nothing, the same answer as an id that does not exist (docs/api.md#conventions)
 */
export function idOrNotFound(raw: string | undefined, notFound: Reason, name: string): number {
  const id = parseId(raw);
  if (id === undefined) throw new AppError(notFound, { [name]: raw });
  return id;
}

/** a device id in a path, as the device routes and WebSocket channels take it */
export const deviceIdOf = (raw: string): number => idOrNotFound(raw, 'DEVICE_NOT_FOUND', 'deviceId');
