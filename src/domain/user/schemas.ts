// Users of a project (docs/concepts.md). A user signs in with email and password (POST /auth/user).
import * as v from 'valibot';
import { FormTextSchema, IdQuerySchema, IdSchema, TimeSchema, pageDocEntries } from '../validate.js';

/** emails are compared case-insensitively: stored trimmed and lower-cased */
export const EmailSchema = v.pipe(
  v.string('email must be a string'),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254, 'email must be at most 254 characters'),
  v.email('email must be an email address'),
);

export const PasswordSchema = v.pipe(
  FormTextSchema('password must be a string'),
  v.minLength(8, 'password must be at least 8 characters'),
  v.maxLength(1024, 'password must be at most 1024 characters'),
);

const NameSchema = v.pipe(
  FormTextSchema('name must be a string'),
  v.maxLength(128, 'name must be at most 128 characters'),
  v.trim(),
  v.minLength(1, 'name is required'),
);

/** never the password hash */
export const UserSchema = v.object({
  id: v.number(),
  projectId: v.number(),
  email: v.string(),
  name: v.string(),
  canCreateDevices: v.boolean(),
  /** docs/concepts.md#accounts: the email address is verified (true from the start where the project does not verify) */
  verified: v.boolean(),
  creationTime: TimeSchema,
});
export type User = v.InferOutput<typeof UserSchema>;

export const CreateUserBodySchema = v.object({
  projectId: IdSchema,
  email: EmailSchema,
  password: PasswordSchema,
  name: NameSchema,
  canCreateDevices: v.optional(v.boolean('canCreateDevices must be true or false')),
});

/**
 * `canCreateDevices` only by a project key. A user changing its own password must also send
 * `currentPassword`: a stolen session token alone must not be enough to take the account.
 */
export const PatchUserBodySchema = v.looseObject({
  name: v.optional(NameSchema),
  email: v.optional(EmailSchema),
  password: v.optional(PasswordSchema),
  currentPassword: v.optional(FormTextSchema('currentPassword must be a string')),
  canCreateDevices: v.optional(v.boolean('canCreateDevices must be true or false')),
});

export const UserListQuerySchema = v.object({
  projectId: IdQuerySchema('projectId'),
  search: v.optional(v.pipe(v.string(), v.maxLength(256, 'search must be at most 256 characters'))),
  ...pageDocEntries,
});
export type UserListFilter = Omit<v.InferOutput<typeof UserListQuerySchema>, 'skip' | 'limit'>;

/** docs/concepts.md#accounts: a mailed code as typed (case and dashes do not matter) */
const CodeSchema = v.pipe(
  FormTextSchema('token must be a string'),
  v.trim(),
  v.minLength(1, 'token is required'),
  v.maxLength(64, 'token must be at most 64 characters'),
);

/** POST /auth/user/emailVerification/start and /auth/user/passwordReset/start */
export const AccountMailBodySchema = v.object({ projectId: IdSchema, email: EmailSchema });

/** POST /auth/user/emailVerification */
export const VerifyEmailBodySchema = v.object({ projectId: IdSchema, email: EmailSchema, token: CodeSchema });

/** POST /auth/user/passwordReset */
export const ResetPasswordBodySchema = v.object({ projectId: IdSchema, email: EmailSchema, token: CodeSchema, password: PasswordSchema });
