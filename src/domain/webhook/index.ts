export { eventDeliveries, WEBHOOK_QUEUE } from './fan-out.js';
export { eventWebhookBody, commandWebhookBody, type EventWebhookBody, type CommandWebhookBody } from './payload.js';
export { eventTargets, subscribes, TARGETS_TTL_MS } from './event-targets.js';
export {
  listDeliveries,
  getDelivery,
  redeliver,
  deliverySummary,
  deliveryDetail,
  DeliveryQuerySchema,
  type DeliverySummary,
  type DeliveryDetail,
} from './log.js';
