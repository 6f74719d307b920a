// Log requests: ask the device for its logs, follow the request's status, download the file.
import { download, get, send } from '../api';
import { DeleteButton, ErrorBox, Section, useAction, useLoad, usePoll, when } from '../ui';

interface LogRequest {
  id: string;
  status: string;
  creationTime?: string;
  filename?: string;
  url?: string;
}

export function DeviceLogRequests({ id }: { id: number }) {
  const requests = useLoad(() => get<LogRequest[]>(`/devices/${id}/logRequests`), [id]);
  const action = useAction();
  const open = requests.data?.some((r) => r.status === 'requested' || r.status === 'uploading');
  // an open request moves on by the device's doing: follow it while it is open
  usePoll(requests.reload, open, 3000);
  return (
    <Section
      title="Log requests"
      actions={
        <button
          type="button"
          disabled={action.busy || open}
          onClick={() => action.run(() => send('POST', `/devices/${id}/logRequests`, {})).then(requests.reload)}
        >
          Request logs
        </button>
      }
    >
      <ErrorBox error={requests.error ?? action.error} />
      {requests.data?.length === 0 ? <p class="muted">No log requests.</p> : null}
      <ul class="plain">
        {requests.data?.map((r) => (
          <li key={r.id} data-log-request={r.status}>
            <span class="tag">{r.status}</span> {when(r.creationTime)} {r.filename ?? ''}{' '}
            {r.status === 'success' ? (
              <button
                type="button"
                class="small"
                onClick={() => action.run(() => download(`/devices/${id}/logRequests/${r.id}/file`, r.filename ?? `${r.id}.log`))}
              >
                Download
              </button>
            ) : null}
            {r.status !== 'uploading' ? (
              <DeleteButton confirm="Delete this request?" action={action} path={`/devices/${id}/logRequests/${r.id}`} onDone={requests.reload} />
            ) : null}
          </li>
        ))}
      </ul>
    </Section>
  );
}
