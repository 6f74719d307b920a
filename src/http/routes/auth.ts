// Mounted at / (see index.ts). Who am I (docs/api.md#credentials) and user sessions (docs/concepts.md).
import { resource } from '../op.js';
import { readBody } from '../body.js';
import { STATUSES } from '../params.js';
import { clientIp } from '../client-ip.js';
import { AuthInfoSchema, whoAmI } from '../../domain/auth/whoami.js';
import { LoginBodySchema, LoginResponseSchema, SessionSchema, getSession, login, logout } from '../../domain/auth/session.js';
import {
  AccountMailBodySchema,
  ResetPasswordBodySchema,
  VerifyEmailBodySchema,
  confirmEmailVerification,
  confirmPasswordReset,
  startEmailVerification,
  startPasswordReset,
} from '../../domain/user/index.js';
import { noContent } from '../no-content.js';

export const authRoutes = resource({ tag: 'auth', statuses: STATUSES.list }, (r, op) => {
  r.get(
    '/auth',
    op({
      operationId: 'getAuthInfo',
      summary: 'What the presented credential acts as (`nobody` without one)',
      success: 200,
      statuses: [401, 429, 500, 503],
      response: AuthInfoSchema,
      auth: 'anyone',
    }),
    (c) => c.json(whoAmI(c.get('caller'))),
  );

  r.post(
    '/auth/user',
    op({
      operationId: 'createUserSession',
      summary:
        'Sign in with email and password for a user token. Failed sign-ins back off per account and per client IP: 429 RATE_LIMITED with Retry-After (seconds), growing with each failure',
      success: 200,
      body: LoginBodySchema,
      response: LoginResponseSchema,
      auth: 'anyone (no credential needed)',
    }),
    async (c) => c.json(await login({ deps: c.get('deps'), input: { body: await readBody(c), ip: clientIp(c) } })),
  );

  r.get(
    '/userSession',
    op({ operationId: 'getUserSession', summary: "The caller's session", success: 200, response: SessionSchema, auth: 'a user token' }),
    async (c) => c.json(await getSession({ deps: c.get('deps'), caller: c.get('caller') })),
  );

  r.delete(
    '/userSession',
    op({ operationId: 'deleteUserSession', summary: 'Sign out: the token stops working and its live streams close', success: 204, auth: 'a user token' }),
    async (c) => {
      await logout({ deps: c.get('deps'), caller: c.get('caller') });
      return noContent(c);
    },
  );

  // docs/concepts.md#accounts: email verification and password reset by mailed code; asking answers 204
  // whatever the address, a wrong, expired or used code is 403 INVALID_TOKEN, both are throttled
  const mailStatuses = [403, 429, 500, 503];
  const accountOps = [
    {
      path: '/auth/user/emailVerification/start',
      operationId: 'startEmailVerification',
      summary: 'Mail a new email-verification code (204 whatever the address: accounts cannot be probed)',
      body: AccountMailBodySchema,
      run: startEmailVerification,
    },
    {
      path: '/auth/user/emailVerification',
      operationId: 'verifyEmail',
      summary: "Verify the user's email address with the mailed code: the user becomes `verified`",
      body: VerifyEmailBodySchema,
      run: confirmEmailVerification,
    },
    {
      path: '/auth/user/passwordReset/start',
      operationId: 'startPasswordReset',
      summary: 'Mail a password-reset code, single use, valid one hour (204 whatever the address: accounts cannot be probed)',
      body: AccountMailBodySchema,
      run: startPasswordReset,
    },
    {
      path: '/auth/user/passwordReset',
      operationId: 'resetPassword',
      summary: 'Set a new password with the mailed code; every session of the user ends',
      body: ResetPasswordBodySchema,
      run: confirmPasswordReset,
    },
  ] as const;
  for (const o of accountOps) {
    r.post(
      o.path,
      op({ operationId: o.operationId, summary: o.summary, success: 204, statuses: mailStatuses, body: o.body, auth: 'anyone (no credential needed)' }),
      async (c) => {
        await o.run({ deps: c.get('deps'), input: { body: await readBody(c), ip: clientIp(c) } });
        return noContent(c);
      },
    );
  }
});
