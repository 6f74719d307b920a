export * from './schemas.js';
export { userView } from './view.js';
export { userFor } from './access.js';
export { createUser } from './create.js';
export { getUser, listUsers } from './read.js';
export { updateUser } from './update.js';
export { deleteUser } from './delete.js';
export { startEmailVerification, confirmEmailVerification, startPasswordReset, confirmPasswordReset } from './account.js';
