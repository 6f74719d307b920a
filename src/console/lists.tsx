// Lists of the pages: a table with its column heads in a box that scrolls sideways on a narrow
// screen, and a list the API pages over its range header (api.ts list) with its pager.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { list, type Page } from './api';
import { ErrorBox, useLoad, type Loaded } from './ui';

export function Pager({ skip, limit, total, onPage }: { skip: number; limit: number; total: number; onPage: (skip: number) => void }) {
  if (total <= limit && skip === 0) return <p class="muted">{total} in all</p>;
  const last = Math.min(skip + limit, total);
  return (
    <nav class="pager" aria-label="pages">
      <button type="button" disabled={skip === 0} onClick={() => onPage(Math.max(0, skip - limit))}>
        Previous
      </button>
      <span>
        {total === 0 ? 0 : skip + 1}–{last} of {total}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onPage(skip + limit)}>
        Next
      </button>
    </nav>
  );
}

export interface PagedList<T> extends Loaded<Page<T>> {
  /** where the page shown starts */
  skip: number;
  /** the pager once a page is read, `Loading…` before the first, nothing after an error */
  pager: ComponentChildren;
}

/** the page of `path` the pager is on; another `path` (a filter changed) starts again at the first page */
export function usePaged<T>(path: string, limit: number): PagedList<T> {
  const [at, setAt] = useState({ path, skip: 0 });
  const skip = at.path === path ? at.skip : 0;
  const page = useLoad(() => list<T>(path, skip, limit), [path, skip]);
  const pager = page.data ? (
    <Pager skip={skip} limit={limit} total={page.data.total} onPage={(s) => setAt({ path, skip: s })} />
  ) : page.error ? null : (
    <p class="muted">Loading…</p>
  );
  return { ...page, skip, pager };
}

/** a plain list of what was read (`row` makes each item's `<li>`), under the error of its reading */
export function PlainList<T>({ items, error, row }: { items: readonly T[] | undefined; error: unknown; row: (item: T) => ComponentChildren }) {
  return (
    <>
      <ErrorBox error={error} />
      <ul class="plain">{items?.map(row)}</ul>
    </>
  );
}

/** the name of an item of a list as a button that opens it below, or closes it; `open`: the item open now */
export function OpenButton<K>({
  id,
  open,
  onOpen,
  children,
}: {
  id: K;
  open: K | undefined;
  onOpen: (id: K | undefined) => void;
  children: ComponentChildren;
}) {
  return (
    <button type="button" class="link" aria-expanded={open === id} onClick={() => onOpen(open === id ? undefined : id)}>
      {children}
    </button>
  );
}

/** a column head: its words, a class (`wide`: hidden on a phone), or `hidden` for words only a screen reader says */
export type Column = string | { label: string; class?: string; hidden?: boolean };

/** a table with its column heads; `attrs` go on the table (data-* marks for tests) */
export function Table(p: { columns: readonly Column[]; label?: string; class?: string; attrs?: Record<string, string>; children: ComponentChildren }) {
  return (
    <div class="scroll">
      <table class={p.class} aria-label={p.label} {...p.attrs}>
        <thead>
          <tr>
            {p.columns.map((c) => {
              const col = typeof c === 'string' ? { label: c } : c;
              return (
                <th key={col.label} scope="col" class={col.class}>
                  {col.hidden ? <span class="sr">{col.label}</span> : col.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{p.children}</tbody>
      </table>
    </div>
  );
}
