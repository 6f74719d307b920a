// A module as answered (docs/webhooks.md). Webhook keys sign requests, so they are kept sealed (not
// hashed) and shown in full only in the answer to creation and rotation; every other answer
// masks them, keeping the prefix and the last four characters so a person can tell keys apart.
import type { ModuleRow } from '../../ports/store.js';
import type { Sealer } from '../crypto/sealer.js';
import type { Module } from './schemas.js';

export interface Reveal {
  event?: boolean;
  command?: boolean;
}

export function maskKey(key: string): string {
  const dot = key.indexOf('.');
  return `${key.slice(0, dot + 1)}****${key.slice(-4)}`;
}

function keyOf(sealer: Sealer, sealed: string, reveal: boolean | undefined): string {
  const key = sealer.unseal(sealed);
  return reveal ? key : maskKey(key);
}

export function moduleView(row: ModuleRow, sealer: Sealer, reveal: Reveal = {}): Module {
  const m: Module = {
    id: row.id,
    projectId: row.projectId,
    moduleType: row.moduleType,
    creationTime: row.creationTime,
    modificationTime: row.modificationTime,
  };
  if (row.description !== null) m.description = row.description;
  if (row.tsdb) m.tsdb = { eventTypes: row.tsdb.eventTypes };
  const ev = row.eventWebhook;
  if (ev) {
    m.eventWebhook = {
      url: ev.url,
      subscriptions: ev.subscriptions.join('\n'),
      ...(ev.headers ? { headers: ev.headers } : {}),
      ...(ev.body !== null ? { body: ev.body } : {}),
      key: keyOf(sealer, ev.keySealed, reveal.event),
      enabled: row.eventDisabled === null,
      ...(row.eventDisabled ? { disabledTime: row.eventDisabled.time, disabledReason: row.eventDisabled.reason } : {}),
    };
  }
  const cmd = row.commandWebhook;
  if (cmd) {
    m.commandWebhook = {
      url: cmd.url,
      key: keyOf(sealer, cmd.keySealed, reveal.command),
      enabled: row.commandDisabled === null,
      ...(row.commandDisabled ? { disabledTime: row.commandDisabled.time, disabledReason: row.commandDisabled.reason } : {}),
    };
  }
  return m;
}
