// Time as a port so tests can move it; production uses the system clock.
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
export const iso = (d: Date): string => d.toISOString();
