// The device's key-value store, live: the KV WebSocket (GET /devices/{id}/kv, upgraded) sends
// `reload` with the whole store and its revision, then every `set`/`delete` with the new
// revision. Editing a key whose value changes underneath shows the conflict instead of writing
// over it unseen.
import { useEffect, useRef, useState } from 'preact/hooks';
import { send } from '../api';
import { onJson, ticketSocket } from '../stream';
import { RowForm, TextField } from '../forms';
import { Table, type Column } from '../lists';
import { DeleteButton, ErrorBox, JsonField, parseJson, Section, useAction } from '../ui';

interface Item {
  key: string;
  value: unknown;
  modificationTime?: string;
}

type Sync =
  | { action: 'reload'; rev: number; items: Item[] }
  | { action: 'set'; rev: number; key: string; value: unknown }
  | { action: 'delete'; rev: number; key: string };

const COLUMNS: Column[] = ['Key', 'Value', { label: 'Actions', hidden: true }];

export function DeviceKv({ id }: { id: number }) {
  const [items, setItems] = useState<Map<string, unknown>>(new Map());
  const [rev, setRev] = useState<number>();
  const [state, setState] = useState<'connecting' | 'live' | 'closed'>('connecting');
  const [editing, setEditing] = useState<{ key: string; text: string; base: string; isNew: boolean }>();
  const [conflict, setConflict] = useState<{ value: unknown; rev: number }>();
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const action = useAction();

  useEffect(() => {
    let closed = false;
    let ws: WebSocket | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const open = async () => {
      let next: WebSocket;
      try {
        // a fresh single-use ticket per socket: the token stays out of the URL (docs/api.md#stream-tickets)
        next = await ticketSocket(`/devices/${id}/kv`);
      } catch {
        if (!closed) retry = setTimeout(open, 2000);
        return;
      }
      if (closed) return next.close();
      ws = next;
      ws.onopen = () => setState('live');
      ws.onclose = () => {
        setState('closed');
        if (!closed) retry = setTimeout(open, 2000);
      };
      onJson<Sync>(ws, (msg) => {
        setRev(msg.rev);
        if (msg.action === 'reload') setItems(new Map(msg.items.map((i) => [i.key, i.value])));
        else if (msg.action === 'set') setItems((old) => new Map(old).set(msg.key, msg.value));
        else if (msg.action === 'delete')
          setItems((old) => {
            const n = new Map(old);
            n.delete(msg.key);
            return n;
          });
        const ed = editingRef.current;
        if (ed && msg.action !== 'reload' && msg.key === ed.key) {
          const now = msg.action === 'set' ? JSON.stringify(msg.value) : undefined;
          if (now !== ed.base) setConflict({ value: msg.action === 'set' ? msg.value : undefined, rev: msg.rev });
        }
      });
    };
    void open();
    return () => {
      closed = true;
      clearTimeout(retry);
      ws?.close();
    };
  }, [id]);

  const startEdit = (key: string, isNew = false) => {
    const base = items.has(key) ? JSON.stringify(items.get(key)) : '';
    setConflict(undefined);
    action.clear();
    setEditing({ key, text: items.has(key) ? JSON.stringify(items.get(key), null, 2) : '""', base: base ?? '', isNew });
  };
  const save = async () => {
    const parsed = parseJson(editing!.text);
    if (!parsed.ok) throw new Error(`The value is not JSON: ${parsed.error}`);
    await send('PUT', `/devices/${id}/kv/${encodeURIComponent(editing!.key)}`, { value: parsed.value });
  };
  const keys = [...items.keys()].sort();
  return (
    <Section
      title="Key-value store"
      actions={
        <span class="muted" data-kv-state={state}>
          {state === 'live' ? `live · rev ${rev ?? '…'}` : state}
        </span>
      }
    >
      <Table class="kv" columns={COLUMNS}>
        {keys.map((k) => (
          <tr key={k} data-kv-key={k}>
            <td>
              <code>{k}</code>
            </td>
            <td>
              <code class="value">{JSON.stringify(items.get(k))}</code>
            </td>
            <td class="actions">
              <button type="button" class="small" onClick={() => startEdit(k)} aria-label={`Edit ${k}`}>
                Edit
              </button>
              <DeleteButton confirm={`Delete ${k}?`} action={action} path={`/devices/${id}/kv/${encodeURIComponent(k)}`} />
            </td>
          </tr>
        ))}
      </Table>
      {keys.length === 0 ? <p class="muted">No keys yet.</p> : null}
      {editing ? (
        <RowForm
          layout="editor"
          label="edit a key"
          action={action}
          showErrors={false}
          onSubmit={save}
          onDone={() => (setEditing(undefined), setConflict(undefined))}
          onCancel={() => setEditing(undefined)}
        >
          {editing.isNew ? (
            <TextField label="Key" name="kvKey" required value={editing.key} onValue={(key) => setEditing({ ...editing, key })} />
          ) : (
            <p>
              Editing <code>{editing.key}</code>
            </p>
          )}
          <JsonField label="Value (JSON)" value={editing.text} onInput={(text) => setEditing({ ...editing, text })} />
          {conflict ? (
            <div class="conflict" role="alert">
              The value changed underneath (rev {conflict.rev}): it is now{' '}
              <code>{conflict.value === undefined ? 'deleted' : JSON.stringify(conflict.value)}</code>.
              <button
                type="button"
                class="small"
                onClick={() => {
                  setEditing({
                    ...editing,
                    text: conflict.value === undefined ? '""' : JSON.stringify(conflict.value, null, 2),
                    base: JSON.stringify(conflict.value),
                  });
                  setConflict(undefined);
                }}
              >
                Take theirs
              </button>{' '}
              Saving writes yours over it.
            </div>
          ) : null}
        </RowForm>
      ) : (
        <button type="button" onClick={() => startEdit('', true)}>
          Add a key
        </button>
      )}
      <ErrorBox error={action.error} />
    </Section>
  );
}
