// Firmware: the project's bundles with their components, a file uploaded per
// component with its progress (PUT .../components/{name}/file, streamed by the service), and the
// rollouts that bring a bundle to devices: their progress, live from `_rolloutUpdated_` events,
// and a form that starts one. A rollout's own page is rollout.tsx. Bundles and rollouts are a
// project key's business: a user session is told so instead of a page of refusals.
import { useEffect, useState } from 'preact/hooks';
import type { BundleComponent, BundleRow } from '../../ports/store/bundles';
import type { RolloutCounts, RolloutDeviceRow, RolloutDeviceState, RolloutRow, RolloutState } from '../../ports/store/rollouts';
import { download, list, send, session, upload } from '../api';
import { onEvent } from '../stream';
import { go, href } from '../router';
import { RowForm, SelectField, TextField, inputValue, type Choice } from '../forms';
import { Table, usePaged } from '../lists';
import { DeleteButton, ErrorBox, Field, Section, useAction, useCoalesced, useLoad, when } from '../ui';

// The wire types of bundles and rollouts (bundles and rollouts of the HTTP API), kept here for both
// pages: each is what the service's view makes of the store port's row (src/domain/bundle/view.ts,
// src/domain/rollout/view.ts), named from the port's types, imported as types only
// (docs/architecture.md#floors-and-imports); test/unit/ops/console-types.test.ts checks them against /openapi.json.
/** a component's `checksum` is `sha256:<hex>` once a file is uploaded */
export type Bundle = Pick<BundleRow, 'id' | 'projectId' | 'deviceClass' | 'components' | 'creationTime'> & {
  name?: string;
  description?: string;
  channel?: string;
};
/** the answer to an upload */
export interface ComponentFile {
  componentName: string;
  size: number;
  sha256: string;
  url: string;
}
/** a device's way through a rollout, in order; installed and failed are final */
export const DEVICE_STATES: readonly RolloutDeviceState[] = ['pending', 'notified', 'downloading', 'installed', 'failed'];
export type Rollout = Pick<
  RolloutRow,
  'id' | 'projectId' | 'bundleId' | 'name' | 'state' | 'target' | 'waves' | 'currentWave' | 'failureThreshold' | 'creationTime' | 'updateTime'
> & { counts: RolloutCounts };
export type RolloutDevice = Pick<RolloutDeviceRow, 'deviceId' | 'state' | 'updateTime'> & { error?: string };
/** what a `_rolloutUpdated_` event carries: the rollout, or at least its id */
export type RolloutEvent = Partial<Rollout> & { id?: string; rolloutId?: string };

export const rolloutIdOf = (d: RolloutEvent) => (typeof d.id === 'string' ? d.id : typeof d.rolloutId === 'string' ? d.rolloutId : undefined);
/** the event's rollout, when it carries the whole of it (state and counts); else only a reload can tell */
export const fullRollout = (d: RolloutEvent): d is Rollout => typeof d.state === 'string' && typeof d.counts === 'object' && d.counts !== null;

/** failed / (installed + failed) in percent, undefined before any result */
export function failureRate(r: Pick<Rollout, 'counts'>): number | undefined {
  const done = r.counts.installed + r.counts.failed;
  return done === 0 ? undefined : (r.counts.failed / done) * 100;
}
export const percentText = (n: number) => `${Math.round(n * 10) / 10}%`;
/** the wave now open, counted from 1 for people; `currentWave` is the service's index from 0 */
export const waveText = (r: Pick<Rollout, 'currentWave' | 'waves'>) => `wave ${Math.min(r.currentWave + 1, r.waves.length)} of ${r.waves.length}`;

const FINISHED = new Set<RolloutState>(['completed', 'aborted']);
export const isFinished = (r: Pick<Rollout, 'state'>) => FINISHED.has(r.state);

/** one bar per device state against the targeted devices, each with its count */
export function StateBars({ r }: { r: Rollout }) {
  return (
    <div class="bars" aria-label="devices by state">
      {DEVICE_STATES.map((s) => (
        <div class={`bar-row ${s}`} key={s} data-state={s}>
          <span class="bar-label">{s}</span>
          <progress max={Math.max(r.counts.targeted, 1)} value={r.counts[s]} aria-label={`${s}: ${r.counts[s]} of ${r.counts.targeted}`} />
          <span class="bar-count">
            <span data-count={s}>{r.counts[s]}</span> / {r.counts.targeted}
          </span>
        </div>
      ))}
    </div>
  );
}

/** one component's file: what is stored, and an upload with its progress */
function ComponentRow({ bundle, c, onUploaded }: { bundle: Bundle; c: BundleComponent; onUploaded: () => void }) {
  const [file, setFile] = useState<File>();
  const [progress, setProgress] = useState<{ sent: number; total: number }>();
  const [done, setDone] = useState<ComponentFile>();
  const action = useAction();
  const path = `/bundles/${encodeURIComponent(bundle.id)}/components/${encodeURIComponent(c.componentName)}/file`;
  const sha = c.checksum?.startsWith('sha256:') ? c.checksum.slice(7) : undefined;
  return (
    <tr data-component={c.componentName}>
      <td>{c.componentName}</td>
      <td>{c.componentVersionName}</td>
      <td data-field="file">
        {sha ? (
          <>
            <code title={c.checksum}>sha256 {sha.slice(0, 12)}…</code>{' '}
            <button type="button" class="small" onClick={() => action.run(() => download(path, c.filename || `${bundle.id}-${c.componentName}.bin`))}>
              Download
            </button>
          </>
        ) : (
          <span class="muted">no file</span>
        )}
      </td>
      <td>
        <form
          class="inline upload"
          aria-label={`upload a file for ${c.componentName}`}
          onSubmit={(e) => {
            e.preventDefault();
            if (!file) return;
            setDone(undefined);
            setProgress({ sent: 0, total: file.size });
            action
              .run(async () => {
                const r = await upload<ComponentFile>(path, file, (sent, total) => setProgress({ sent, total }));
                setDone(r);
              })
              .then((ok) => ok && onUploaded());
          }}
        >
          <input type="file" aria-label={`file for ${c.componentName}`} onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0])} />
          <button type="submit" class="small" disabled={!file || action.busy}>
            Upload
          </button>
          {progress ? (
            <span class="upload-progress" data-upload={done ? 'done' : action.error ? 'failed' : 'sending'}>
              <progress max={Math.max(progress.total, 1)} value={progress.sent} aria-label={`upload of ${c.componentName}`} />{' '}
              {done ? `stored, ${done.size} bytes` : `${Math.floor((progress.sent / Math.max(progress.total, 1)) * 100)}%`}
            </span>
          ) : null}
        </form>
        <ErrorBox error={action.error} />
      </td>
    </tr>
  );
}

function BundleCard({ b, onChanged }: { b: Bundle; onChanged: () => void }) {
  const del = useAction();
  return (
    <div class="bundle" data-bundle={b.id}>
      <h3>
        {b.name ? `${b.name} (${b.id})` : b.id} <span class="tag">{b.deviceClass}</span>
        {b.channel ? <span class="tag">channel {b.channel}</span> : null}
      </h3>
      {b.description ? <p class="muted">{b.description}</p> : null}
      <Table label={`components of ${b.id}`} columns={['Component', 'Version', 'File', 'Upload']}>
        {b.components.map((c) => (
          <ComponentRow key={c.componentName} bundle={b} c={c} onUploaded={onChanged} />
        ))}
      </Table>
      <DeleteButton
        label="Delete bundle"
        confirm={`Delete bundle ${b.id} and its files?`}
        action={del}
        path={`/bundles/${encodeURIComponent(b.id)}`}
        onDone={onChanged}
      />
      <ErrorBox error={del.error} />
    </div>
  );
}

/** components as lines `name version` */
function parseComponents(text: string): { ok: true; value: BundleComponent[] } | { ok: false; error: string } {
  const value: BundleComponent[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    const words = line.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    if (words.length !== 2) return { ok: false, error: `line ${i + 1}: write a component name and its version, separated by a space` };
    value.push({ componentName: words[0], componentVersionName: words[1] });
  }
  return value.length ? { ok: true, value } : { ok: false, error: 'at least one component' };
}

function CreateBundle({ projectId, classes, onCreated }: { projectId: number; classes: string[]; onCreated: () => void }) {
  const [id, setId] = useState('');
  const [deviceClass, setClass] = useState('');
  const [channel, setChannel] = useState('');
  const [components, setComponents] = useState('');
  const action = useAction();
  const cls = deviceClass || classes[0] || '';
  const parsed = parseComponents(components);
  return (
    <Section title="Add a bundle">
      <RowForm
        layout="stack"
        label="add a bundle"
        action={action}
        submit="Create bundle"
        disabled={!parsed.ok || !id || !cls}
        onSubmit={async () => {
          if (!parsed.ok) throw new Error(`Components: ${parsed.error}`);
          await send('POST', '/bundles', { id, projectId, deviceClass: cls, channel: channel || undefined, components: parsed.value });
        }}
        onDone={() => (setId(''), setComponents(''), onCreated())}
      >
        <div class="row">
          <TextField label="Bundle id" name="bundleId" required value={id} onValue={setId} />
          <SelectField label="Class" name="deviceClass" value={cls} choices={classes} onValue={setClass} />
          <TextField label="Channel" name="channel" value={channel} onValue={setChannel} />
        </div>
        <Field
          label="Components"
          hint={
            components.trim() === '' || parsed.ok ? (
              'one a line: name and version, e.g. “main 1.4.2”'
            ) : (
              <span class="bad">{(parsed as { error: string }).error}</span>
            )
          }
        >
          <textarea name="components" rows={3} value={components} onInput={(e) => setComponents(inputValue(e))} />
        </Field>
      </RowForm>
    </Section>
  );
}

const TTLS: Choice[] = [
  ['', 'the service default'],
  ['3600', '1 hour'],
  ['86400', '1 day'],
  ['604800', '7 days'],
  ['2592000', '30 days'],
];

/** whole numbers from text, for the device ids of a target */
function parseIds(text: string): { ok: true; value?: number[] } | { ok: false; error: string } {
  const words = text.split(/[\s,]+/).filter(Boolean);
  if (words.length === 0) return { ok: true };
  const bad = words.find((w) => !/^[1-9]\d{0,9}$/.test(w));
  return bad ? { ok: false, error: `“${bad}” is not a device id` } : { ok: true, value: words.map(Number) };
}

function CreateRollout({ projectId, bundles }: { projectId: number; bundles: Bundle[] }) {
  const [bundleId, setBundle] = useState('');
  const [name, setName] = useState('');
  const [waves, setWaves] = useState<{ percent: string; afterMinutes: string }[]>([{ percent: '100', afterMinutes: '' }]);
  const [threshold, setThreshold] = useState('10');
  const [rate, setRate] = useState('');
  const [ttl, setTtl] = useState('');
  const [channel, setChannel] = useState('');
  const [tag, setTag] = useState('');
  const [ids, setIds] = useState('');
  const action = useAction();
  const bid = bundleId || bundles[0]?.id || '';
  const parsedIds = parseIds(ids);
  const wavesOk = waves.every((w, i) => {
    const p = Number(w.percent);
    const prev = i === 0 ? 0 : Number(waves[i - 1].percent);
    return w.percent.trim() !== '' && p > prev && p <= 100 && (w.afterMinutes.trim() === '' || Number(w.afterMinutes) >= 0);
  });
  const setWave = (i: number, k: 'percent' | 'afterMinutes', v: string) => setWaves(waves.map((w, j) => (j === i ? { ...w, [k]: v } : w)));
  return (
    <Section title="Start a rollout">
      {bundles.length === 0 ? <p class="muted">Add a bundle first.</p> : null}
      <RowForm
        layout="stack"
        label="start a rollout"
        action={action}
        submit="Start rollout"
        disabled={!bid || !parsedIds.ok || !wavesOk}
        onSubmit={async () => {
          if (!parsedIds.ok) throw new Error(`Target device ids: ${parsedIds.error}`);
          const target = { channel: channel || undefined, tag: tag || undefined, deviceIds: parsedIds.value };
          const r = await send<Rollout>('POST', `/projects/${projectId}/rollouts`, {
            bundleId: bid,
            name: name || undefined,
            target: Object.values(target).some((v) => v !== undefined) ? target : undefined,
            waves: waves.map((w) => ({ percent: Number(w.percent), afterMinutes: w.afterMinutes.trim() === '' ? undefined : Number(w.afterMinutes) })),
            failureThreshold: Number(threshold),
            ratePerMinute: rate.trim() === '' ? undefined : Number(rate),
            ttl: ttl === '' ? undefined : Number(ttl),
          });
          go(`firmware/${encodeURIComponent(r.id)}`);
        }}
      >
        <div class="row">
          <SelectField
            label="Bundle"
            name="bundle"
            value={bid}
            choices={bundles.map((b): Choice => [b.id, `${b.id} (${b.deviceClass})`])}
            onValue={setBundle}
          />
          <TextField label="Rollout name" name="name" value={name} onValue={setName} />
        </div>
        <fieldset>
          <legend>Waves</legend>
          <p class="hint">
            Each wave brings the share of targeted devices up to its percent, once the previous wave is that many minutes old and under the threshold.
          </p>
          {waves.map((w, i) => (
            <div class="row" key={i} data-wave={i + 1}>
              <Field label={`Wave ${i + 1}: up to percent`}>
                <input type="number" min={1} max={100} required value={w.percent} onInput={(e) => setWave(i, 'percent', inputValue(e))} />
              </Field>
              <Field label={`Wave ${i + 1}: minutes after the previous`}>
                <input type="number" min={0} value={w.afterMinutes} disabled={i === 0} onInput={(e) => setWave(i, 'afterMinutes', inputValue(e))} />
              </Field>
              {waves.length > 1 ? (
                <button type="button" class="small" onClick={() => setWaves(waves.filter((_, j) => j !== i))}>
                  Remove wave {i + 1}
                </button>
              ) : null}
            </div>
          ))}
          {!wavesOk ? <p class="bad">Each wave's percent must be above the one before it, and at most 100.</p> : null}
          <button type="button" class="small" onClick={() => setWaves([...waves, { percent: '100', afterMinutes: '60' }])}>
            Add a wave
          </button>
        </fieldset>
        <div class="row">
          <Field label="Failure threshold (%)" hint="paused by itself above this, after 5 results">
            <input type="number" name="failureThreshold" min={0} max={100} required value={threshold} onInput={(e) => setThreshold(inputValue(e))} />
          </Field>
          <Field label="Devices notified per minute" hint="empty: no limit">
            <input type="number" name="ratePerMinute" min={1} value={rate} onInput={(e) => setRate(inputValue(e))} />
          </Field>
          <SelectField label="A device's update waits up to" name="ttl" value={ttl} choices={TTLS} onValue={setTtl} />
        </div>
        <fieldset>
          <legend>Target</legend>
          <p class="hint">The bundle's device class, narrowed by what is filled in here.</p>
          <div class="row">
            <TextField label="Target channel" name="channel" value={channel} onValue={setChannel} />
            <TextField label="Target tag" name="tag" value={tag} onValue={setTag} />
            <TextField
              label="Target device ids"
              hint={parsedIds.ok ? 'separated by spaces or commas' : <span class="bad">{(parsedIds as { error: string }).error}</span>}
              name="deviceIds"
              value={ids}
              invalid={!parsedIds.ok}
              onValue={setIds}
            />
          </div>
        </fieldset>
      </RowForm>
    </Section>
  );
}

const LIMIT = 20;

function Rollouts({ projectId }: { projectId: number }) {
  const page = usePaged<Rollout>(`/projects/${projectId}/rollouts`, LIMIT);
  const { data, set } = page;
  const refresh = useCoalesced(page.reload, page.loading);
  useEffect(
    () =>
      onEvent((e) => {
        if (e.eventType !== '_rolloutUpdated_') return;
        const d = e.eventData as RolloutEvent;
        const id = rolloutIdOf(d);
        if (data && id && fullRollout(d) && data.items.some((r) => r.id === id))
          set({ ...data, items: data.items.map((r) => (r.id === id ? { ...r, ...d } : r)) });
        else refresh();
      }),
    [data],
  );
  return (
    <Section title="Rollouts">
      <ErrorBox error={page.error} />
      {data && data.items.length === 0 ? <p class="muted">No rollouts yet.</p> : null}
      {data && data.items.length > 0 ? (
        <Table label="rollouts" columns={['Rollout', 'Bundle', 'State', 'Wave', 'Installed', 'Failed', 'Started']}>
          {data.items.map((r) => (
            <tr key={r.id} data-rollout={r.id}>
              <td>
                <a href={href(`firmware/${encodeURIComponent(r.id)}`)}>{r.name || r.id}</a>
              </td>
              <td>{r.bundleId}</td>
              <td data-field="state">{r.state}</td>
              <td>{waveText(r)}</td>
              <td>
                <progress
                  max={Math.max(r.counts.targeted, 1)}
                  value={r.counts.installed}
                  aria-label={`installed on ${r.counts.installed} of ${r.counts.targeted}`}
                />{' '}
                <span data-count="installed">{r.counts.installed}</span> / {r.counts.targeted}
              </td>
              <td data-count="failed">{r.counts.failed}</td>
              <td>{when(r.creationTime)}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      {page.pager}
    </Section>
  );
}

export function Firmware() {
  const s = session()!;
  const projectId = s.projectId;
  const bundles = usePaged<Bundle>(`/bundles?projectId=${projectId}`, LIMIT);
  const classes = useLoad(() => list<{ id: string }>(`/projects/${projectId}/deviceClasses`, 0, 200), [projectId]);
  if (s.kind !== 'project key')
    return (
      <div class="page">
        <h1>Firmware</h1>
        <p class="notice">Bundles and rollouts are managed with a project API key: sign in with one to see them here.</p>
      </div>
    );
  return (
    <div class="page">
      <h1>Firmware</h1>
      <Rollouts projectId={projectId} />
      {bundles.data ? <CreateRollout projectId={projectId} bundles={bundles.data.items} /> : null}
      <Section title="Bundles">
        <ErrorBox error={bundles.error ?? classes.error} />
        {bundles.data && bundles.data.items.length === 0 ? <p class="muted">No bundles yet.</p> : null}
        {bundles.data?.items.map((b) => (
          <BundleCard key={b.id} b={b} onChanged={bundles.reload} />
        ))}
        {bundles.pager}
      </Section>
      <CreateBundle projectId={projectId} classes={classes.data?.items.map((c) => c.id) ?? []} onCreated={bundles.reload} />
    </div>
  );
}
