// The command outbox (docs/concepts.md#command-outbox): commands that wait for a sleeping device.
// Every state change is one conditional update, so each transition happens once however many
// brokers and API nodes race for it; claiming for a connection is what makes a command go out
// once per connection in cluster mode.
import type { Page, Paged } from './page.js';

export type CommandState = 'queued' | 'sent' | 'delivered' | 'acked' | 'failed' | 'expired' | 'cancelled';
/** states a device may still answer (an answer to a delivered command without ackRequired is taken too) */
export const ANSWERABLE_COMMAND: readonly CommandState[] = ['queued', 'sent', 'delivered'];

export interface CommandRow {
  id: string;
  projectId: number;
  deviceId: number;
  action: string;
  parameters: Record<string, unknown>;
  ackRequired: boolean;
  state: CommandState;
  /** the idempotency key, if the caller gave one */
  key: string | null;
  creationTime: string;
  expirationTime: string;
  sentTime: string | null;
  deliveredTime: string | null;
  ackTime: string | null;
  /** when it reached a final state (acked, failed, expired, cancelled; delivered without ackRequired) */
  finishTime: string | null;
  result: Record<string, unknown> | null;
  /** the connection (DeviceSession.connectionId) it was last written to */
  connectionId: string | null;
  /** how many times it was written to a connection */
  sends: number;
}

export type NewCommand = Pick<
  CommandRow,
  'id' | 'projectId' | 'deviceId' | 'action' | 'parameters' | 'ackRequired' | 'key' | 'creationTime' | 'expirationTime'
>;

export interface CommandRepo {
  /**
   * Inserts the command unless the device already holds `limit` unfinished commands, or a live
   * command with the same key (then that one is returned with `existing`). The count and the key
   * are checked in the same transaction as the insert.
   */
  create(c: NewCommand, limit: number): Promise<{ row: CommandRow; existing?: boolean } | { full: true }>;
  get(id: string): Promise<CommandRow | undefined>;
  /** newest first; `states` narrows */
  list(deviceId: number, states: readonly CommandState[] | undefined, page: Page): Promise<Paged<CommandRow>>;
  /**
   * Claims for sending on `connectionId`, in creation order, the device's commands due there:
   * queued ones, sent ones, and delivered ones with ackRequired, not expired at `now`. `fresh`:
   * also those already written to another connection (a new connection); otherwise only those
   * written to none yet (a command that arrived while connected). Queued ones become `sent`.
   * One statement: two brokers never claim a command for the same connection.
   */
  claim(deviceId: number, connectionId: string, now: string, fresh: boolean): Promise<CommandRow[]>;
  /** a `sent` command written to `connectionId` was confirmed by the transport; undefined: nothing changed */
  delivered(id: string, connectionId: string, now: string, final: boolean): Promise<CommandRow | undefined>;
  /**
   * Applies a final state to a command of `deviceId`: an `answer` (acked, failed) while it is
   * queued, sent or delivered; a `cancel` while it is unfinished. Returns the updated row, or
   * undefined when the command was not in such a state.
   */
  finish(
    id: string,
    deviceId: number,
    when: 'answer' | 'cancel',
    patch: { state: CommandState; finishTime: string; ackTime?: string; result?: Record<string, unknown> | null },
  ): Promise<CommandRow | undefined>;
  /** unfinished commands past their expiration at `now`, marked `expired` (at most `limit`); the rows as updated */
  expire(now: string, limit: number, deviceId?: number): Promise<CommandRow[]>;
  /** unfinished commands of every device, for the depth gauge */
  depth(): Promise<number>;
  /** up to `limit` commands finished before `before` removed; returns how many */
  prune(before: string, limit: number): Promise<number>;
  deleteForDevice(deviceId: number): Promise<number>;
}
