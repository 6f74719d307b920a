// What the domain reports for /metrics (docs/operations.md#health-and-metrics). main.ts hands in the implementation
// (src/adapters/metrics.ts, on the registry /metrics serves); absent, nothing is measured.
export interface PipelineMetrics {
  /** an event and its webhook deliveries were committed, `seconds` after they entered the pipeline */
  eventCommitted(seconds: number): void;
}

/** the command outbox's figures (docs/concepts.md#command-outbox); counted by the process that made the change */
export interface OutboxMetrics {
  /** a command reached a final state; `seconds` from its creation */
  finished(state: 'delivered' | 'acked' | 'failed' | 'expired' | 'cancelled', seconds: number): void;
}
