// Send a command: the action checked as you type against the pattern of the project's
// `commandActions` setting (docs/concepts.md#commands: "spec", lowercase letters, digits, `-` and
// `_`, at least 3 characters, starting and ending with a letter or digit; "mode", uppercase too),
// parameters as JSON. A credential that cannot read the setting (a user) gets the wider pattern
// and the service's answer. A device with no live connection cannot take it: DEVICE_OFFLINE.
import { useState } from 'preact/hooks';
import { send, session } from '../api';
import { ErrorBox, Field, JsonField, parseJson, Section, useAction, useLoad } from '../ui';
import { loadProject } from './project';

export const ACTION_PATTERN = /^[0-9a-z][0-9a-z_-]+[0-9a-z]$/;
export const MODE_ACTION_PATTERN = /^[0-9A-Za-z][0-9A-Za-z_-]+[0-9A-Za-z]$/;

const RULES = {
  spec: { pattern: ACTION_PATTERN, words: 'lowercase letters, digits, - and _', source: '^[0-9a-z][0-9a-z_-]+[0-9a-z]$' },
  mode: { pattern: MODE_ACTION_PATTERN, words: 'letters, digits, - and _', source: '^[0-9A-Za-z][0-9A-Za-z_-]+[0-9A-Za-z]$' },
};

export function SendCommand({ id, online }: { id: number; online?: boolean }) {
  const [action, setAction] = useState('');
  const [params, setParams] = useState('{}');
  const [sent, setSent] = useState<string>();
  const run = useAction();
  const projectId = session()!.projectId;
  const project = useLoad(() => loadProject(projectId), [projectId]);
  const rule = RULES[project.loading || project.data?.commandActions === 'spec' ? 'spec' : 'mode'];
  const actionOk = rule.pattern.test(action);
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
              `${rule.words}; 3 or more characters`
            ) : (
              <span class="bad" data-hint="action">
                must match {rule.source} ({rule.words}, starting and ending with a letter or digit)
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
