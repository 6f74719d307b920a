// The device's events: live from the stream, above the history (GET /events, newest first).
import { useEffect, useRef, useState } from 'preact/hooks';
import { qs } from '../api';
import { onEvent, type HearthEvent } from '../stream';
import { usePaged } from '../lists';
import { ErrorBox, Section, useCoalesced, when } from '../ui';

const LIMIT = 20;

function EventRow({ e, live }: { e: HearthEvent; live?: boolean }) {
  return (
    <li data-event-type={e.eventType} class={live ? 'live-item' : undefined}>
      <time>{when(e.timestamp)}</time> <strong>{e.eventType}</strong> <code>{JSON.stringify(e.eventData)}</code>
    </li>
  );
}

export function DeviceEvents({ id, projectId }: { id: number; projectId: number }) {
  const [liveEvents, setLive] = useState<HearthEvent[]>([]);
  const history = usePaged<HearthEvent>(`/events${qs({ projectId, deviceId: id })}`, LIMIT);
  const skipRef = useRef(history.skip);
  skipRef.current = history.skip;
  // an event reaches the stream only once it is in the history (docs/concepts.md#events), so the
  // first page of the history is read again as live events arrive: at most one read at a time,
  // and one more after it if events came meanwhile
  const refresh = useCoalesced(history.reload, history.loading);
  useEffect(() => {
    setLive([]);
    return onEvent((e) => {
      if (e.originDeviceId !== id) return;
      setLive((old) => [e, ...old].slice(0, 100));
      if (skipRef.current === 0) refresh();
    });
  }, [id]);
  return (
    <Section title="Events">
      <h3>Live</h3>
      {liveEvents.length === 0 ? <p class="muted">Waiting for events…</p> : null}
      <ul class="events live-events" aria-live="polite">
        {liveEvents.map((e, i) => (
          <EventRow key={`l${i}`} e={e} live />
        ))}
      </ul>
      <h3>History</h3>
      <ErrorBox error={history.error} />
      <ul class="events" data-history-total={history.data?.total}>
        {history.data?.items.map((e, i) => (
          <EventRow key={`h${i}`} e={e} />
        ))}
      </ul>
      {history.pager}
    </Section>
  );
}
