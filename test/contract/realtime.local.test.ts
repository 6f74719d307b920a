import { createLocalBus } from '../../src/adapters/local/bus.js';
import { createLocalPresence } from '../../src/adapters/local/presence.js';
import { createMemoryRateLimiter } from '../../src/adapters/local/rate-limiter.js';
import { busContract } from './bus.js';
import { presenceContract } from './presence.js';
import { rateLimiterContract } from './rate-limiter.js';

busContract('in-process', async () => {
  const bus = createLocalBus();
  return { bus, cleanup: () => bus.close() };
});
presenceContract('in-process', async () => {
  const presence = createLocalPresence();
  return { presence, cleanup: () => presence.close() };
});
rateLimiterContract('memory', async (o) => ({ limiter: createMemoryRateLimiter(o), cleanup: async () => {} }));
