// What Deps carries to say that events of devices in no home reach no module (docs/concepts.md#homes):
// domain/log/homeless.ts implements it on a server node; the admin CLI's stand-in says nothing.
export interface HomelessEvents {
  /** an event of the device (in no home) was accepted */
  note(projectId: number, deviceId: number, eventType: string): Promise<void>;
  /** stops the timers; the summaries due are written now (before the store closes) */
  close(): Promise<void>;
}
