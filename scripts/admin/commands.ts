// The command table: two words (`devices create`), or one (`backup`). Importing it loads no
// domain code.
import type { Command } from './types.js';
import { devices, keys, projects, users } from './registry.js';
import { homes, members } from './homes.js';
import { modules } from './modules.js';
import { backup, restore } from './backup-commands.js';

export const COMMANDS: Record<string, Record<string, Command> | Command> = { projects, keys, users, devices, homes, members, modules, backup, restore };

export const isCommand = (x: Record<string, Command> | Command | undefined): x is Command => typeof x?.usage === 'string';

/** the commands of a group (a one-word command is its own group) */
export const groupOf = (group: string): Command[] => {
  const g = COMMANDS[group];
  return g === undefined ? [] : isCommand(g) ? [g] : Object.values(g);
};
