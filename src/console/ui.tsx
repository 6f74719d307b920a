// Shared pieces of the pages: loading state with the service's reason in words, following what
// moves by itself, copy buttons, a confirm step for destructive actions, a JSON editor that checks
// as you type. Forms are in forms.tsx, tables and paged lists in lists.tsx.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, send } from './api';
import { eventsReceived } from './stream';

export function errorText(err: unknown): string {
  return err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err);
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {errorText(error)}
    </p>
  );
}

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  /** the stream's event count (`eventsReceived`) when the read that gave `data` began: live events numbered above it are newer than `data` */
  since: number;
  reload: () => void;
  set: (t: T) => void;
}

/**
 * load(): re-runs when deps change; `reload` runs it again; a stale answer (an older read's) is
 * dropped. `set` shows what the page knows to be newer at once; a read that was in flight then may
 * hold older values (or rows `set` does not have), so its answer is not shown: it is read again.
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean; since: number }>({ loading: true, since: 0 });
  const seq = useRef(0);
  /** bumped by every `set`: a read that began before the last one is read again */
  const sets = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    const since = eventsReceived();
    const setsBefore = sets.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => {
        if (mine !== seq.current) return;
        if (sets.current !== setsBefore) run();
        else setState({ data, since, loading: false });
      },
      (error) => mine === seq.current && setState((s) => ({ data: s.data, since: s.since, error, loading: false })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  const set = (data: T) => {
    sets.current++;
    setState((s) => ({ ...s, data, error: undefined, since: eventsReceived() }));
  };
  return { ...state, reload: run, set };
}

/**
 * a refresh asked for by a burst of live events: the returned function calls `fn` now, or, while
 * `busy` (its read in flight), once more when that read ends; never more than one read at a time
 */
export function useCoalesced(fn: () => void, busy: boolean): () => void {
  const fnRef = useRef(fn);
  fnRef.current = fn;
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const again = useRef(false);
  useEffect(() => {
    if (busy || !again.current) return;
    again.current = false;
    busyRef.current = true;
    fnRef.current();
  }, [busy]);
  return useCallback(() => {
    if (busyRef.current) again.current = true;
    else {
      busyRef.current = true;
      fnRef.current();
    }
  }, []);
}

/** `reload` every `ms` while `on`: what moves on by itself (a run, a log upload, a delivery) is followed until it settles */
export function usePoll(reload: () => void, on: boolean | undefined, ms: number): void {
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(reload, ms);
    return () => clearInterval(timer);
  }, [on]);
}

export interface Action {
  busy: boolean;
  error?: unknown;
  /** runs `fn`; true when it succeeded, false when it threw (its error kept in `error`) */
  run: (fn: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
}

/** runs an action, keeping its error and busy state for the button that started it */
export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
      return true;
    } catch (err) {
      setError(err);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // no clipboard (plain http on another host): select the text for the person instead
          const ta = document.createElement('textarea');
          ta.value = text;
          document.body.append(ta);
          ta.select();
          document.execCommand('copy');
          ta.remove();
        }
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/** a secret shown once, with its copy button */
export function Secret({ label, value }: { label: string; value: string }) {
  return (
    <div class="secret">
      <span>{label}</span>
      <code data-secret={label}>{value}</code>
      <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}

/** what the service shows once (a new key, a claim code), until the person says Done (`onDone`) */
export function ShownOnce({ children, onDone }: { children: ComponentChildren; onDone?: () => void }) {
  return (
    <div class="once" role="status">
      {children}
      {onDone ? (
        <button type="button" onClick={onDone}>
          Done
        </button>
      ) : null}
    </div>
  );
}

/** a destructive action asks once more, inline */
export function ConfirmButton({ label, confirm, onConfirm }: { label: string; confirm: string; onConfirm: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={confirm}>
      <span>{confirm}</span>
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** `DELETE path` through `action`, asked once more first; `onDone` once it is gone (read the list again) */
export function DeleteButton(p: { confirm: string; action: Action; path: string; onDone?: () => void; label?: string }) {
  return (
    <ConfirmButton
      label={p.label ?? 'Delete'}
      confirm={p.confirm}
      onConfirm={() => void p.action.run(() => send('DELETE', p.path)).then((ok) => ok && p.onDone?.())}
    />
  );
}

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: ComponentChildren }) {
  return (
    <label class="field">
      <span>{label}</span>
      {children}
      {hint ? <small class="hint">{hint}</small> : null}
    </label>
  );
}

/** JSON text: parsed as you type; `onValue` gets the value, or undefined while it is not JSON */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function JsonField({ label, value, onInput, rows = 6 }: { label: string; value: string; onInput: (t: string) => void; rows?: number }) {
  const parsed = value.trim() === '' ? { ok: true as const } : parseJson(value);
  return (
    <Field label={label} hint={parsed.ok ? 'valid JSON' : <span class="bad">{(parsed as { error: string }).error}</span>}>
      <textarea rows={rows} spellcheck={false} aria-invalid={!parsed.ok} value={value} onInput={(e) => onInput((e.target as HTMLTextAreaElement).value)} />
    </Field>
  );
}

export const when = (iso?: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header>
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
