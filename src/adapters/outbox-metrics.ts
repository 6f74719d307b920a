// The command outbox's metrics (docs/operations.md#health-and-metrics, docs/concepts.md#command-outbox),
// on the registry /metrics serves (main.ts):
// - hearth_outbox_depth: unfinished commands of every device (read from the store when scraped);
// - hearth_outbox_commands_total{state}: commands that reached a final state, counted by the
//   process that made the change (sum the nodes in cluster mode);
// - hearth_outbox_ack_seconds: from a command's creation to the device's answer.
// State changes are rare next to events and publishes: prom-client's own objects are cheap enough.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { OutboxMetrics } from '../ports/metrics.js';
import type { CommandRepo } from '../ports/store.js';

export function createOutboxMetrics(registry: Registry, commands: Pick<CommandRepo, 'depth'>): OutboxMetrics {
  new Gauge({
    name: 'hearth_outbox_depth',
    help: 'Unfinished commands in device outboxes (queued, sent, or delivered and waiting for an answer)',
    registers: [registry],
    async collect() {
      this.set(await commands.depth());
    },
  });
  const finished = new Counter({
    name: 'hearth_outbox_commands_total',
    help: 'Outbox commands that reached a final state (delivered without ackRequired, acked, failed, expired, cancelled)',
    labelNames: ['state'],
    registers: [registry],
  });
  const ack = new Histogram({
    name: 'hearth_outbox_ack_seconds',
    help: "Time from an outbox command's creation to the device's answer (acked or failed)",
    buckets: [0.05, 0.25, 1, 5, 30, 120, 600, 3600, 21600, 86400, 604800],
    registers: [registry],
  });
  return {
    finished(state, seconds) {
      finished.inc({ state });
      if (state === 'acked' || state === 'failed') ack.observe(Math.max(0, seconds));
    },
  };
}
