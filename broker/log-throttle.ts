// The broker's log throttle is the domain's (the event pipeline uses the same one).
export { LogThrottle } from '../src/domain/log/throttle.js';
