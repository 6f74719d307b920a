// The pieces every form of the pages is made of: a form whose submit runs through an action (its
// busy state and error, ui.tsx useAction) with its Create or Save/Cancel buttons, a labelled
// choice among options, the lines of a details list (a label and its value, edited in place
// where it may change), and the value of an input event.
import type { ComponentChildren } from 'preact';
import { ErrorBox, Field, type Action } from './ui';

/** the value of the input, select or textarea an event came from */
export const inputValue = (e: Event) => (e.target as HTMLInputElement).value;

/** the buttons of a form being edited (in place, `small`, or a larger editor) */
export function SaveCancel({ busy, onCancel, small = true }: { busy: boolean; onCancel: () => void; small?: boolean }) {
  return (
    <>
      <button type="submit" class={small ? 'primary small' : 'primary'} disabled={busy}>
        Save
      </button>
      <button type="button" class={small ? 'small' : undefined} onClick={onCancel}>
        Cancel
      </button>
    </>
  );
}

/**
 * A form whose submit runs `onSubmit` through `action` and, once it succeeded, `onDone` (empty the
 * fields, read the list again). Its buttons: one submit button named `submit` (`primary` unless
 * said otherwise, disabled while busy or `disabled`), or Save and Cancel when `onCancel` is given,
 * small in an `inline` form, or none (the children hold their own). `layout`: the fields in a `row`
 * (the default), `inline` in a line of text (an edit in place), an `editor` box, or a `stack`.
 * The action's error (or `error`) shows under the form, unless the page shows it elsewhere (`showErrors`).
 */
export function RowForm(p: {
  label?: string;
  action: Action;
  onSubmit: () => Promise<unknown>;
  onDone?: () => void;
  layout?: 'row' | 'inline' | 'editor' | 'stack';
  submit?: string;
  primary?: boolean;
  disabled?: boolean;
  onCancel?: () => void;
  error?: unknown;
  showErrors?: boolean;
  children: ComponentChildren;
}) {
  const busy = p.action.busy;
  const layout = p.layout ?? 'row';
  const form = (
    <form
      class={layout === 'stack' ? undefined : layout}
      aria-label={p.label}
      onSubmit={(e) => {
        e.preventDefault();
        void p.action.run(p.onSubmit).then((ok) => ok && p.onDone?.());
      }}
    >
      {p.children}
      {p.onCancel ? <SaveCancel busy={busy} onCancel={p.onCancel} small={layout === 'inline'} /> : null}
      {p.submit ? (
        <button type="submit" class={p.primary === false ? undefined : 'primary'} disabled={busy || p.disabled}>
          {p.submit}
        </button>
      ) : null}
    </form>
  );
  if (p.showErrors === false) return form;
  return (
    <>
      {form}
      <ErrorBox error={p.action.error ?? p.error} />
    </>
  );
}

/** a labelled text input; `invalid` marks a value that is not valid yet */
export function TextField(p: {
  label: string;
  name?: string;
  value: string;
  onValue: (v: string) => void;
  hint?: ComponentChildren;
  required?: boolean;
  type?: 'email' | 'password' | 'search' | 'url' | 'number';
  placeholder?: string;
  inputMode?: 'numeric';
  autocomplete?: 'username' | 'new-password' | 'current-password' | 'one-time-code' | 'off';
  invalid?: boolean;
}) {
  return (
    <Field label={p.label} hint={p.hint}>
      <input
        name={p.name}
        type={p.type}
        inputMode={p.inputMode}
        autocomplete={p.autocomplete}
        required={p.required}
        placeholder={p.placeholder}
        aria-invalid={p.invalid}
        value={p.value}
        onInput={(e) => p.onValue(inputValue(e))}
      />
    </Field>
  );
}

/** an option's value and its words; a plain string is both */
export type Choice = string | readonly [value: string, text: string];

/** a labelled choice among `choices` */
export function SelectField(p: {
  label: string;
  name?: string;
  value: string;
  choices: readonly Choice[];
  onValue: (v: string) => void;
  hint?: ComponentChildren;
  disabled?: boolean;
}) {
  return (
    <Field label={p.label} hint={p.hint}>
      <select name={p.name} value={p.value} disabled={p.disabled} onChange={(e) => p.onValue(inputValue(e))}>
        {p.choices.map((c) => {
          const [value, text] = typeof c === 'string' ? [c, c] : c;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
    </Field>
  );
}

/** one line of a details list (`<dl class="details">`): a label and its value; `attrs` go on the value */
export function Line({ label, children, attrs }: { label: string; children: ComponentChildren; attrs?: Record<string, string | undefined> }) {
  return (
    <div class="kv-line">
      <dt>{label}</dt>
      <dd {...attrs}>{children}</dd>
    </div>
  );
}
