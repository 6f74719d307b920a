// A value now, or a promise of it. The HTTP fast path answers from the read cache without a
// promise (each await on the hot path costs a microtask turn and a frame: `npm run bench -- api`),
// so the verbs it calls return T when the answer is in memory and Promise<T> when the store must
// be asked. One rule, one function: the caller that can stay synchronous does, through after().
export type Maybe<T> = T | Promise<T>;

/**
 * `f` of the value: at once when there is one, else once the promise settles. (Not named `then`:
 * a module exporting `then` is taken for a promise by dynamic import.)
 */
export function after<T, U>(value: Maybe<T>, f: (v: T) => Maybe<U>): Maybe<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
