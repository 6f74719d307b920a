// Delivery ids (the X-Service-Delivery header): unique across processes, and time-ordered so
// that a log sorted by id reads in creation order. A random prefix per process and a counter make
// them without a call to the random source per delivery (thousands a second).
import { randomId } from '../auth/tokens.js';

const PROCESS = randomId(9);
let counter = 0;

export function newDeliveryId(now: Date): string {
  counter = (counter + 1) % 2_176_782_336; // 36^6
  return `d${now.getTime().toString(36).padStart(9, '0')}-${PROCESS}${counter.toString(36).padStart(6, '0')}`;
}
