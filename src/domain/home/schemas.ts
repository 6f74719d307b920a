// Homes, their members and device provisioning tokens (docs/concepts.md).
import * as v from 'valibot';
import { IdQuerySchema, IdSchema, SlugSchema, TextSchema, TimeSchema, pageDocEntries } from '../validate.js';
import { EmailSchema } from '../user/schemas.js';

const NameSchema = v.pipe(TextSchema('name', 128), v.trim(), v.minLength(1, 'name is required'));
export const HomeSchema = v.object({ id: v.number(), projectId: v.number(), name: v.string(), creationTime: TimeSchema });
export type Home = v.InferOutput<typeof HomeSchema>;

/** a project key must name its project; a user's home goes into the user's project */
export const CreateHomeBodySchema = v.object({ name: NameSchema, projectId: v.optional(IdSchema) });
export const PatchHomeBodySchema = v.looseObject({ name: v.optional(NameSchema) });
export const HomeListQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  userId: IdQuerySchema('userId'),
  ...pageDocEntries,
});
export type HomeListFilter = Omit<v.InferOutput<typeof HomeListQuerySchema>, 'skip' | 'limit'>;

export const RoleSchema = v.picklist(['owner', 'member'], 'role must be owner or member');
/** `verified`: whether the user proved its email; Hearth has no verification yet, so false */
export const MemberSchema = v.object({
  homeId: v.number(),
  userId: v.number(),
  name: v.string(),
  email: v.string(),
  verified: v.boolean(),
  role: RoleSchema,
  creationTime: TimeSchema,
});
export type Member = v.InferOutput<typeof MemberSchema>;
/**
 * A user of the project by `userId` or by `email` (MODE's app library sends `{email,
 * phoneNumber, role}`; `phoneNumber` is accepted and ignored). `role` defaults to member.
 */
export const AddMemberBodySchema = v.pipe(
  v.object({
    userId: v.optional(IdSchema),
    email: v.optional(EmailSchema),
    phoneNumber: v.optional(v.unknown()),
    role: v.optional(RoleSchema, 'member'),
  }),
  v.check((b) => b.userId !== undefined || b.email !== undefined, 'userId or email is required'),
);
export const PatchMemberBodySchema = v.object({ role: RoleSchema });

export const ProvisioningBodySchema = v.object({
  deviceClass: SlugSchema('deviceClass'),
  deviceTag: v.optional(TextSchema('deviceTag', 256)),
});
export const ProvisioningTokenSchema = v.object({ token: v.string(), expirationTime: TimeSchema });
export type ProvisioningToken = v.InferOutput<typeof ProvisioningTokenSchema>;
