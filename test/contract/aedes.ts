// Aedes's emitter and persistence contracts: the suites their authors publish (mqemitter's
// abstractTest.js, aedes-persistence's abstract.js, written for node:test), run under vitest
// against the in-process twins Aedes uses by default and against the Redis pair cluster mode
// uses (src/adapters/redis/aedes.ts), so both pass the same suite.
import assert from 'node:assert';
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const emitterSuite = require('mqemitter/abstractTest.js') as (opts: { builder: (opts?: object) => unknown; test: NodeTestLike }) => void;
const persistenceSuite = require('aedes-persistence/abstract.js') as (opts: {
  test: NodeTestLike;
  persistence: () => Promise<unknown> | unknown;
  buildEmitter?: () => unknown;
  testAsync?: boolean;
}) => void;

type NodeTestLike = (name: string, fn: (t: NodeTestContext) => Promise<void> | void) => void;
interface NodeTestContext {
  assert: typeof assert;
  plan(n: number): void;
  diagnostic(msg: string): void;
  fail(msg?: string): never;
}

/**
 * node:test's `test` as the suites use it: `t.assert.*` (node:assert, counted), `t.plan(n)`
 * (the count must match when the test ends, as in node:test), `t.diagnostic`, `t.fail`.
 */
function vitestAsNodeTest(prefix: string, replaced: ReadonlySet<string> = new Set()): NodeTestLike {
  return (name, fn) => {
    // a test the caller runs in a form of its own (aedesEmitterContract's `replaced`)
    if (replaced.has(name)) return;
    // the suites' tests run many round trips through Redis: the timeout only bounds a hang (30 s
    // ran out for three of them under load)
    it(`${prefix}: ${name}`, { timeout: 120_000 }, async () => {
      let planned: number | undefined;
      let count = 0;
      const counted = new Proxy(assert, {
        get(target, key, receiver) {
          const v = Reflect.get(target, key, receiver) as unknown;
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => {
            count++;
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const t: NodeTestContext = {
        assert: counted,
        plan: (n) => void (planned = n),
        diagnostic: () => {},
        fail: (msg) => assert.fail(msg),
      };
      await fn(t);
      if (planned !== undefined) expect(count, 'assertions made against t.plan()').toBe(planned);
    });
  };
}

/**
 * `replaced`: names of suite tests the caller runs in a form of its own instead. For an emitter on
 * Redis, 'without a callback on emit and on' emits 100 ms after an `on` whose SUBSCRIBE it does
 * not wait for: on a loaded machine Redis had not confirmed it yet, the message went nowhere and
 * the test hung until its timeout. realtime.redis.test.ts runs it waiting for the subscription.
 */
export function aedesEmitterContract(name: string, builder: (opts?: object) => unknown, replaced: readonly string[] = []): void {
  emitterSuite({ builder, test: vitestAsNodeTest(`${name} emitter`, new Set(replaced)) });
}

export function aedesPersistenceContract(name: string, opts: { persistence: () => Promise<unknown> | unknown; buildEmitter?: () => unknown }): void {
  persistenceSuite({ test: vitestAsNodeTest(`${name} persistence`), testAsync: true, ...opts });
}
