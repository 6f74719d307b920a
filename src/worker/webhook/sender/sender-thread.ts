// The body of the sender thread (threaded-sender.ts): the sender core (buffer, lanes, signing)
// and the plain webhook client (keep-alive pool per origin, timeout, response cap, target policy
// on the dialled address) in a worker_thread, so the exchanges' CPU — the socket syscalls and
// reading the answers — is spent on another core than the event loop that ingests events and
// writes the queue.
import { parentPort, workerData } from 'node:worker_threads';
import { createWebhookClient } from '../client/http-client.js';
import { createSenderCore } from './sender-core.js';
import { packReports, unpackJobs, type FromSender, type SenderThreadData, type ToSender } from './sender-protocol.js';

const port = parentPort!;
const data = workerData as SenderThreadData;
const core = createSenderCore(createWebhookClient(data.client), data.sender, (batch) => port.postMessage({ batch: packReports(batch) } satisfies FromSender));

port.on('message', (msg: ToSender) => {
  if ('jobs' in msg) core.submit(unpackJobs(msg.jobs));
  else void core.stop(msg.graceMs).then(() => port.postMessage({ stopped: true } satisfies FromSender));
});
