export { enforceRetention, yieldBetweenBatches, type RetentionLimits, type RetentionResult, type RetentionDeps } from './enforce.js';
