// aedes-persistence-redis ships no types: the one call Hearth makes of it (adapters/redis/aedes.ts)
declare module 'aedes-persistence-redis' {
  const createPersistence: (opts: { conn?: unknown; maxSessionDelivery?: number }) => unknown;
  export default createPersistence;
}
