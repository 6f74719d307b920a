// Homes by name for the pages that show or choose a device's home (the device table, a device's
// page, the create form): one read of the project's homes per page view. A device in no home
// reaches no smart module (docs/webhooks.md#event-webhook), so the choice is made in words.
import { useMemo } from 'preact/hooks';
import { list, qs } from './api';
import { SelectField, type Choice } from './forms';
import { useLoad } from './ui';

export interface Home {
  id: number;
  name: string;
  creationTime?: string;
}

export interface Homes {
  /** sorted by name; undefined while loading */
  list?: Home[];
  error?: unknown;
  /** the home's name; `home <id>` for one not among the homes read (more than CHOICES, or not visible) */
  nameOf: (id: number) => string;
  reload: () => void;
}

/** the homes one read lists; a project with more is still shown, the rest by id */
const CHOICES = 1000;

export function useHomes(projectId: number): Homes {
  const homes = useLoad(() => list<Home>(`/homes${qs({ projectId })}`, 0, CHOICES), [projectId]);
  return useMemo(() => {
    const items = homes.data ? [...homes.data.items].sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id) : undefined;
    const byId = new Map(items?.map((h) => [h.id, h]));
    return { list: items, error: homes.error, nameOf: (id: number) => byId.get(id)?.name ?? `home ${id}`, reload: homes.reload };
  }, [homes.data, homes.error]);
}

/**
 * a chooser of the project's homes by name, after the `lead` choices (by default "" = no home);
 * names two homes share get their ids
 */
export function HomeSelect({
  label,
  homes,
  value,
  onChange,
  current,
  name = 'homeId',
  lead = [['', 'in no home']],
}: {
  label: string;
  homes: Homes;
  value: string;
  onChange: (v: string) => void;
  /** the device's home now: listed even when it is not among the homes read */
  current?: number;
  name?: string;
  lead?: readonly Choice[];
}) {
  const items = homes.list ?? [];
  const counts = new Map<string, number>();
  for (const h of items) counts.set(h.name, (counts.get(h.name) ?? 0) + 1);
  const choices: Choice[] = [...lead, ...items.map((h): Choice => [String(h.id), counts.get(h.name)! > 1 ? `${h.name} (id ${h.id})` : h.name])];
  if (current !== undefined && !items.some((h) => h.id === current)) choices.push([String(current), homes.nameOf(current)]);
  return <SelectField label={label} name={name} value={value} choices={choices} onValue={onChange} />;
}
