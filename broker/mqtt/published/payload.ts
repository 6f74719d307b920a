// MQTT payloads are JSON objects (docs/devices.md#mqtt). A payload that is not is the device's mistake: the
// publish is dropped and logged, the connection stays. Nesting past the limit (docs/api.md#conventions) is
// judged on the text, before JSON.parse or anything else recursive sees it.
import { jsonTextDepthIssue } from '../../../src/domain/json-depth.js';

export class PayloadError extends Error {
  override name = 'PayloadError';
}

export function jsonObjectOf(payload: Buffer | string, maxDepth: number): Record<string, unknown> {
  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  const deep = jsonTextDepthIssue(text, maxDepth);
  if (deep) throw new PayloadError(`payload ${deep.message}${deep.path ? ` (at ${deep.path})` : ''}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new PayloadError(`payload is not JSON: ${(e as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PayloadError('payload must be a JSON object');
  return value as Record<string, unknown>;
}
