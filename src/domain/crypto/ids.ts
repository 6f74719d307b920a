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
  /** the millisecond the ids' time part and the timestamp text were last made for, and them */
  private idMs = NaN;
  private idTime = '';
  private textMs = NaN;
  private text = '';

  constructor(random: RandomSource) {
    this.eventPrefix = random.id(6);
    this.deliveryPrefix = random.id(9);
  }

  /** an event id (also a command's, docs/concepts.md#command-outbox): sorts like the timestamp within one process */
  event(now: Date): string {
    this.events = (this.events + 1) % 0x7fffffff;
    return `${this.timePart(now)}-${this.eventPrefix}${this.events.toString(36).padStart(6, '0')}`;
  }

  /** a webhook delivery id (the X-Service-Delivery header) */
  delivery(now: Date): string {
    this.deliveries = (this.deliveries + 1) % 2_176_782_336; // 36^6
    return `d${this.timePart(now)}-${this.deliveryPrefix}${this.deliveries.toString(36).padStart(6, '0')}`;
  }

  /**
   * now.toISOString(), made once per millisecond: an event's timestamp and its deliveries' creation
   * time. The events of a burst share their millisecond, and toISOString cost about 1 µs a call on
   * the loaded bench machine, on every event (issue #26).
   */
  timestamp(now: Date): string {
    const ms = now.getTime();
    if (ms !== this.textMs) {
      this.text = now.toISOString();
      this.textMs = ms;
    }
    return this.text;
  }

  /** the ids' time part, base 36, made once per millisecond as the timestamp is */
  private timePart(now: Date): string {
    const ms = now.getTime();
    if (ms !== this.idMs) {
      this.idTime = ms.toString(36).padStart(9, '0');
      this.idMs = ms;
    }
    return this.idTime;
  }
}
