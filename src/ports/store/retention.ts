// Batched deletes of the bounded histories (docs/operations.md retention).

export type PrunableHistory = 'accessLogs' | 'generalLogs' | 'events';

export interface RetentionRepo {
  /** up to `limit` rows older than `before`; returns how many went */
  prune(history: PrunableHistory, before: string, limit: number): Promise<number>;
}
