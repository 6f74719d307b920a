import { createRequire } from 'node:module';
import { createLocalBus } from '../../src/adapters/local/bus.js';
import { createLocalPresence } from '../../src/adapters/local/presence.js';
import { createMemoryRateLimiter } from '../../src/adapters/local/rate-limiter.js';
import { busContract } from './bus.js';
import { presenceContract } from './presence.js';
import { rateLimiterContract } from './rate-limiter.js';
import { mqttSessionsContract } from './mqtt-sessions.js';
import { createLocalMqttSessions } from '../../src/adapters/local/mqtt-sessions.js';
import { aedesEmitterContract, aedesPersistenceContract } from './aedes.js';

busContract('in-process', async () => {
  const bus = createLocalBus();
  return { bus, cleanup: () => bus.close() };
});
presenceContract('in-process', async () => {
  const presence = createLocalPresence();
  return { presence, cleanup: () => presence.close() };
});
rateLimiterContract('memory', async (o) => ({ limiter: createMemoryRateLimiter(o), cleanup: async () => {} }));
mqttSessionsContract('memory', async () => ({ sessions: createLocalMqttSessions(), cleanup: async () => {} }));

// what Aedes runs on in embedded mode: its defaults, mqemitter and aedes-persistence in memory
const mqemitter = (await import('mqemitter')).default;
const memoryPersistence = createRequire(import.meta.url)('aedes-persistence') as () => unknown;
aedesEmitterContract('in-process', (opts) => mqemitter(opts));
aedesPersistenceContract('in-process', { persistence: () => memoryPersistence() });
