// Event and delivery ids (Deps.ids): unique across processes, and time-ordered so that a list
// sorted by id reads in creation order within one process. A random prefix per source and a
// counter make them without a call to the random source per event or delivery (thousands a
// second; that call was a measurable share of MQTT ingest).
import type { RandomSource } from './random.js';

export class IdSource {
  private readonly eventPrefix: string;
  private readonly deliveryPrefix: string;
  private events = 0;
  private deliveries = 0;

  constructor(random: RandomSource) {
    this.eventPrefix = random.id(6);
    this.deliveryPrefix = random.id(9);
  }

  /** an event id (also a command's, docs/concepts.md#command-outbox): sorts like the timestamp within one process */
  event(now: Date): string {
    this.events = (this.events + 1) % 0x7fffffff;
    return `${now.getTime().toString(36).padStart(9, '0')}-${this.eventPrefix}${this.events.toString(36).padStart(6, '0')}`;
  }

  /** a webhook delivery id (the X-Service-Delivery header) */
  delivery(now: Date): string {
    this.deliveries = (this.deliveries + 1) % 2_176_782_336; // 36^6
    return `d${now.getTime().toString(36).padStart(9, '0')}-${this.deliveryPrefix}${this.deliveries.toString(36).padStart(6, '0')}`;
  }
}
