// Send a command: the action checked as you type against the pattern of the project's
// `commandActions` setting (docs/concepts.md#commands: "spec", lowercase letters, digits, `-` and
// `_`, at least 3 characters, starting and ending with a letter or digit; "mode", uppercase too;
// a credential that cannot read the setting, a user, gets the wider pattern and the service's
// answer), parameters as JSON. "If offline": refuse (PUT .../command: DEVICE_OFFLINE without a live
// connection) or wait up to a time in the device's outbox (POST .../commands with that ttl,
// docs/concepts.md#command-outbox). The outbox below follows each command's state live, from the
// `_deviceCommandUpdated_` events of the stream, and cancels unfinished ones.
import { useEffect, useState } from 'preact/hooks';
import { list, send, session } from '../api';
import { onEvent } from '../stream';
import { RowForm, SelectField, TextField, type Choice } from '../forms';
import { Table, type Column } from '../lists';
import { ConfirmButton, ErrorBox, JsonField, parseJson, Section, useAction, useLoad, when } from '../ui';
import { loadProject } from './project';

interface Command {
  id: string;
  action: string;
  parameters: Record<string, unknown>;
  ackRequired: boolean;
  state: string;
  creationTime: string;
  expirationTime: string;
  result?: Record<string, unknown>;
}

/** "if the device is offline": 0 refuses (the direct command), else the outbox ttl in seconds */
const WAITS: Choice[] = [
  ['0', 'refuse (deliver only to a live connection)'],
  ['3600', 'wait up to 1 hour'],
  ['86400', 'wait up to 1 day'],
  ['604800', 'wait up to 7 days'],
  ['2592000', 'wait up to 30 days'],
];
const FINISHED = new Set(['acked', 'failed', 'expired', 'cancelled']);
const COLUMNS: Column[] = ['Action', 'State', 'Created', 'Expires', 'Result', { label: 'Cancel', hidden: true }];

export const ACTION_PATTERN = /^[0-9a-z][0-9a-z_-]+[0-9a-z]$/;
export const MODE_ACTION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_-]+[0-9A-Za-z]$/;

const RULES = {
  spec: { pattern: ACTION_PATTERN, words: 'lowercase letters, digits, - and _', source: '^[0-9a-z][0-9a-z_-]+[0-9a-z]$' },
  mode: { pattern: MODE_ACTION_PATTERN, words: 'letters, digits, - and _', source: '^[0-9A-Za-z][0-9A-Za-z_-]+[0-9A-Za-z]$' },
};

export function SendCommand({ id, online }: { id: number; online?: boolean }) {
  const [action, setAction] = useState('');
  const [params, setParams] = useState('{}');
  const [wait, setWait] = useState(0);
  const [ackRequired, setAckRequired] = useState(false);
  const [sent, setSent] = useState<string>();
  const [queued, setQueued] = useState(0);
  const run = useAction();
  const projectId = session()!.projectId;
  const project = useLoad(() => loadProject(projectId), [projectId]);
  const rule = RULES[project.loading || project.data?.commandActions === 'spec' ? 'spec' : 'mode'];
  const actionOk = rule.pattern.test(action);
  const paramsParsed = params.trim() === '' ? { ok: true as const, value: undefined } : parseJson(params);
  return (
    <>
      <Section title="Send a command">
        {online === false ? <p class="muted">The device is offline now: choose to wait for it, or a command is delivered only to a live connection.</p> : null}
        <RowForm
          layout="stack"
          label="send a command"
          action={run}
          submit="Send"
          disabled={!actionOk || !paramsParsed.ok}
          onSubmit={async () => {
            setSent(undefined);
            const parameters = paramsParsed.ok ? paramsParsed.value : undefined;
            if (wait > 0) {
              await send('POST', `/devices/${id}/commands`, { action, parameters, ttl: wait, ackRequired });
              setSent(`Queued “${action}” in the device's outbox.`);
              setQueued((n) => n + 1);
            } else {
              await send('PUT', `/devices/${id}/command`, { action, parameters });
              setSent(`Delivered “${action}” to the device's live connections.`);
            }
          }}
        >
          <TextField
            label="Action"
            hint={
              action === '' || actionOk ? (
                `${rule.words}; 3 or more characters`
              ) : (
                <span class="bad" data-hint="action">
                  must match {rule.source} ({rule.words}, starting and ending with a letter or digit)
                </span>
              )
            }
            name="action"
            required
            invalid={action !== '' && !actionOk}
            value={action}
            onValue={setAction}
          />
          <JsonField label="Parameters (JSON object)" value={params} onInput={setParams} rows={4} />
          <SelectField label="If the device is offline" name="wait" value={String(wait)} choices={WAITS} onValue={(v) => setWait(Number(v))} />
          {wait > 0 ? (
            <label class="check">
              <input type="checkbox" name="ackRequired" checked={ackRequired} onChange={(e) => setAckRequired((e.target as HTMLInputElement).checked)} /> wait
              for the device's answer (ackRequired)
            </label>
          ) : null}
        </RowForm>
        {sent ? (
          <p class="ok" role="status">
            {sent}
          </p>
        ) : null}
      </Section>
      <Outbox id={id} changed={queued} />
    </>
  );
}

/** the device's outbox, newest first; states change live from the stream's events */
function Outbox({ id, changed }: { id: number; changed: number }) {
  const page = useLoad(() => list<Command>(`/devices/${id}/commands`, 0, 20), [id, changed]);
  const cancel = useAction();
  const { set, data } = page;
  useEffect(
    () =>
      onEvent((e) => {
        if (e.originDeviceId !== id || e.eventType !== '_deviceCommandUpdated_' || !data) return;
        const { id: cid, state, result } = e.eventData as { id: string; state: string; result?: Record<string, unknown> };
        if (data.items.some((c) => c.id === cid))
          set({ ...data, items: data.items.map((c) => (c.id === cid ? { ...c, state, result: result ?? c.result } : c)) });
        else page.reload();
      }),
    [id, data],
  );
  return (
    <Section title="Outbox">
      {page.data && page.data.items.length === 0 ? <p class="muted">No commands waiting or sent through the outbox.</p> : null}
      {page.data && page.data.items.length > 0 ? (
        <Table label="outbox" columns={COLUMNS}>
          {page.data.items.map((c) => (
            <tr key={c.id} data-command={c.id}>
              <td>{c.action}</td>
              <td data-field="state">{c.state}</td>
              <td>{when(c.creationTime)}</td>
              <td>{when(c.expirationTime)}</td>
              <td>{c.result ? <code>{JSON.stringify(c.result)}</code> : '—'}</td>
              <td>
                {FINISHED.has(c.state) || (c.state === 'delivered' && !c.ackRequired) ? null : (
                  <ConfirmButton
                    label="Cancel command"
                    confirm={`Cancel “${c.action}”?`}
                    onConfirm={() => void cancel.run(() => send('DELETE', `/devices/${id}/commands/${c.id}`))}
                  />
                )}
              </td>
            </tr>
          ))}
        </Table>
      ) : null}
      <ErrorBox error={page.error ?? cancel.error} />
    </Section>
  );
}
