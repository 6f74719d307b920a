// docs/devices.md#limits: a store is bounded by the size of its `reload` message (limits.kvStoreBytes),
// so a device can always receive its whole store in one MQTT packet. The size is computed from
// the stored parts without building the message: the adapter sums them in SQL inside the write.

/** `{"action":"reload","rev":` + `,"numItems":` + `,"items":[` + `]}` */
const ENVELOPE = 49;
/** `{"key":"` `","value":` `,"modificationTime":"` `"}` around one item, and its comma */
export const RELOAD_ITEM_OVERHEAD = 42;

/**
 * bytes of `JSON.stringify(reload)` for a store at `rev` holding `numItems` pairs whose key,
 * value (stored JSON text) and modificationTime add up to `partBytes` UTF-8 bytes (keys need no
 * JSON escapes: docs/concepts.md#key-value-stores allows letters, digits, `-`, `_`, `:`)
 */
export function reloadBytes(rev: number, numItems: number, partBytes: number): number {
  const items = numItems ? partBytes + numItems * RELOAD_ITEM_OVERHEAD - 1 : 0;
  return ENVELOPE + String(rev).length + String(numItems).length + items;
}
