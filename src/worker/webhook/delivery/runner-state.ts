// The claim loop's state (runner.ts) as one value and the transitions between its states, so what
// the runner knows about itself and about the queue is named, and changes only in these steps.

/** running: claims and takes rows; stopping: claims nothing, rows that arrive go to the sender to be released; closed: rows that arrive are given back at once */
export type Life = 'running' | 'stopping' | 'closed';
/** idle: no claim runs; claiming: one runs; again: one runs and another was asked for meanwhile */
export type Loop = 'idle' | 'claiming' | 'again';

export interface RunnerState {
  life: Life;
  loop: Loop;
  /** the last claim took every claimable row: more come only from new work, a freed excluded lane, a retry coming due, or the poll */
  drained: boolean;
  /** lanes left out of the last claim: room freeing in one of them is a reason to claim again */
  excluded: ReadonlySet<string>;
  /**
   * new rows may be handed to us as they are written (reservations.ts): only while the queue holds
   * nothing due for us; opened by a claim that came back short, closed by any sign of new work
   */
  handoff: boolean;
  /** signs of new work seen so far, so a claim that raced one does not open the handoff */
  signals: number;
}

export const initialState = (): RunnerState => ({ life: 'running', loop: 'idle', drained: false, excluded: new Set(), handoff: false, signals: 0 });

/** new work may exist (bus, poll, retry timer): claim even if the last claim found nothing */
export const pumped = (s: RunnerState): RunnerState => ({ ...s, drained: false, handoff: false, signals: s.signals + 1 });

/** rows were written for us that we had no room for: the queue holds due rows again */
export const refused = (s: RunnerState): RunnerState => ({ ...s, handoff: false, signals: s.signals + 1 });

/** room freed in a lane the last claim left out */
export const laneFreed = (s: RunnerState, lane: string): RunnerState => (s.excluded.has(lane) ? { ...s, drained: false } : s);

/** a claim came back: `drained` when it returned fewer rows than it asked for; `excluded` the lanes it left out or had no room in */
export const claimed = (s: RunnerState, c: { drained: boolean; excluded: ReadonlySet<string> }): RunnerState => ({
  ...s,
  drained: c.drained,
  excluded: c.excluded,
});

/**
 * the claim's surplus rows are back in the queue: if nothing due was left behind, in any lane, and
 * no sign of new work came since the claim began (`seen`), new rows may come straight to us
 */
export const claimSettled = (s: RunnerState, c: { seen: number; leftBehind: boolean }): RunnerState =>
  s.drained && !c.leftBehind && c.seen === s.signals && s.life === 'running' ? { ...s, handoff: true } : s;

/** a claim is asked for; returns the state and whether this caller runs the loop */
export function loopAsked(s: RunnerState): [RunnerState, boolean] {
  if (s.life !== 'running') return [s, false];
  if (s.loop !== 'idle') return [{ ...s, loop: 'again' }, false];
  return [{ ...s, loop: 'claiming' }, true];
}

export const stopping = (s: RunnerState): RunnerState => ({ ...s, life: 'stopping', handoff: false });
export const closed = (s: RunnerState): RunnerState => ({ ...s, life: 'closed' });

/** a retry due sooner than the next poll wakes the loop itself: one timer, for the soonest */
export function retryWake(pollMs: number, wake: () => void): { wakeIn(ms: number): void; cancel(): void } {
  let at = Infinity;
  let timer: NodeJS.Timeout | undefined;
  return {
    wakeIn(ms) {
      const due = Date.now() + ms;
      if (ms >= pollMs || due >= at) return;
      clearTimeout(timer);
      at = due;
      timer = setTimeout(
        () => {
          at = Infinity;
          wake();
        },
        Math.max(0, ms),
      );
      timer.unref();
    },
    cancel: () => clearTimeout(timer),
  };
}
