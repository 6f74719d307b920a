// Send a command: the action checked against the service's pattern as you type (lowercase
// letters, digits, `-` and `_`, at least 3 characters, starting and ending with a letter or
// digit), parameters as JSON. A device with no live connection cannot take it: DEVICE_OFFLINE.
import { useState } from 'preact/hooks';
import { send } from '../api';
import { ErrorBox, Field, JsonField, parseJson, Section, useAction } from '../ui';

export const ACTION_PATTERN = /^[0-9a-z][0-9a-z_-]+[0-9a-z]$/;

export function SendCommand({ id, online }: { id: number; online?: boolean }) {
  const [action, setAction] = useState('');
  const [params, setParams] = useState('{}');
  const [sent, setSent] = useState<string>();
  const run = useAction();
  const actionOk = ACTION_PATTERN.test(action);
  const paramsParsed = params.trim() === '' ? { ok: true as const, value: undefined } : parseJson(params);
  return (
    <Section title="Send a command">
      {online === false ? <p class="muted">The device is offline now: a command is delivered only to a live connection.</p> : null}
      <form
        aria-label="send a command"
        onSubmit={(e) => {
          e.preventDefault();
          setSent(undefined);
          run.run(async () => {
            await send('PUT', `/devices/${id}/command`, { action, parameters: paramsParsed.ok ? paramsParsed.value : undefined });
            setSent(action);
          });
        }}
      >
        <Field
          label="Action"
          hint={
            action === '' || actionOk ? (
              'lowercase letters, digits, - and _; 3 or more characters'
            ) : (
              <span class="bad" data-hint="action">
                must match ^[0-9a-z][0-9a-z_-]+[0-9a-z]$ (lowercase letters, digits, - and _, starting and ending with a letter or digit)
              </span>
            )
          }
        >
          <input
            name="action"
            required
            aria-invalid={action !== '' && !actionOk}
            value={action}
            onInput={(e) => setAction((e.target as HTMLInputElement).value)}
          />
        </Field>
        <JsonField label="Parameters (JSON object)" value={params} onInput={setParams} rows={4} />
        <button type="submit" class="primary" disabled={run.busy || !actionOk || !paramsParsed.ok}>
          Send
        </button>
      </form>
      {sent ? (
        <p class="ok" role="status">
          Delivered “{sent}” to the device's live connections.
        </p>
      ) : null}
      <ErrorBox error={run.error} />
    </Section>
  );
}
