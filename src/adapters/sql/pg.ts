// node-postgres, loaded only when a postgres:// URL is opened: an embedded server and the admin
// CLI on SQLite never pay for parsing it (a measurable share of the CLI's start, issue #16).
import type pg from 'pg';

let loaded: Promise<typeof pg> | undefined;

/** the `pg` module, with our type parsers set once before its first use */
export function loadPg(): Promise<typeof pg> {
  return (loaded ??= import('pg').then((m) => {
    const mod = m.default;
    // PostgreSQL returns bigint (int8) and count(*) as strings; every value we keep there fits
    // in a double, so parse them as numbers.
    mod.types.setTypeParser(20, (v: string) => Number(v));
    return mod;
  }));
}
