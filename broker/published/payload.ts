// MQTT payloads are JSON objects (API.md §5). A payload that is not is the device's mistake: the
// publish is dropped and logged, the connection stays.
export class PayloadError extends Error {
  override name = 'PayloadError';
}

export function jsonObjectOf(payload: Buffer | string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8'));
  } catch (e) {
    throw new PayloadError(`payload is not JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PayloadError('payload must be a JSON object');
  return value as Record<string, unknown>;
}
