// What op() says of an operation (op.ts): its name, the statuses it may answer, its schemas and
// who may call it. The edge, the Hono environment and /openapi.json read it; a file of its own so
// that env.ts, which the op() middleware needs, does not import op.ts back.
import type { GenericSchema } from 'valibot';

export interface OpMeta {
  operationId: string;
  summary: string;
  tag: string;
  /** statuses the operation may answer besides success; undefined = any of docs/api.md#errors */
  statuses?: readonly number[];
  success: number;
  body?: GenericSchema;
  query?: GenericSchema;
  response?: GenericSchema;
  /** the body is raw bytes of this media type, not JSON (a file upload), for the docs */
  rawBody?: { mediaType: string; description: string };
  /**
   * the success answer is raw bytes of this media type (a file download), for the docs: its
   * headers, and the other successes it may answer (206 with its own headers, 304 without a body)
   */
  rawResponse?: {
    mediaType: string;
    headers: Record<string, string>;
    also?: Record<number, { description: string; body: boolean; headers?: Record<string, string> }>;
  };
  /** who may call, for the docs */
  auth?: string;
  /** false for endpoints that take no credential at all (health, token in the path) */
  authenticated?: boolean;
  /** an optional credential in `?authToken=` (WebSocket endpoints) */
  queryToken?: boolean;
}
