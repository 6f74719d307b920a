export * from './schemas.js';
export { homeView, memberView } from './view.js';
export { createHome } from './create.js';
export { getHome, listHomes } from './read.js';
export { updateHome } from './update.js';
export { deleteHome } from './delete.js';
export { listMembers, addMember, updateMember, removeMember } from './members.js';
export { createProvisioningToken } from './provision.js';
