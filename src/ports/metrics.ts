// What the domain reports for /metrics (docs/operations.md#health-and-metrics). main.ts hands in the implementation
// (src/adapters/metrics.ts, on the registry /metrics serves); absent, nothing is measured.
export interface PipelineMetrics {
  /** an event and its webhook deliveries were committed, `seconds` after they entered the pipeline */
  eventCommitted(seconds: number): void;
}
