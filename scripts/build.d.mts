// Types for scripts/build.mjs (plain JavaScript so that it runs before anything is built), for the
// TypeScript that imports it (scripts/bench/cli.ts).
export function sourcesUnder(dir: string): string[];
export function buildServer(outdir?: string): Promise<{ outdir: string; sources: number; assets: number; ms: number }>;
export function buildConsole(outdir?: string): void;
