// GET /auth (docs/api.md#credentials): what the presented credential acts as. No credential is `nobody`.
import * as v from 'valibot';
import type { Caller } from '../caller.js';

export const AuthInfoSchema = v.object({
  type: v.picklist(['user', 'device', 'project key', 'nobody']),
  userId: v.optional(v.number()),
  deviceId: v.optional(v.number()),
  projectId: v.optional(v.number()),
  projectKeyId: v.optional(v.string()),
  projectKeyName: v.optional(v.string()),
});
export type AuthInfo = v.InferOutput<typeof AuthInfoSchema>;

export function whoAmI(caller: Caller): AuthInfo {
  switch (caller.type) {
    case 'user':
      return { type: 'user', userId: caller.userId, projectId: caller.projectId };
    case 'device':
      return { type: 'device', deviceId: caller.deviceId, projectId: caller.projectId };
    case 'project key':
      return { type: 'project key', projectId: caller.projectId, projectKeyId: caller.keyId, projectKeyName: caller.keyName };
    default:
      return { type: 'nobody' };
  }
}
