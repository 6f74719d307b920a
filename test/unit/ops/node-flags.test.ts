// The node flags Hearth is started with (docs/operations.md#memory): `npm start`, the Docker
// image and the systemd unit run `node <flags> dist/src/main.js` with the same flags, and the
// benches read them from package.json (scripts/bench/baselines/hearth.ts), so what is measured
// is what users run.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hearthNodeFlags } from '../../../scripts/bench/baselines/hearth.js';

const ROOT = new URL('../../../', import.meta.url).pathname;
const read = (f: string) => readFileSync(ROOT + f, 'utf8');

describe("Hearth's node flags", () => {
  const start = (JSON.parse(read('package.json')) as { scripts: { start: string } }).scripts.start;
  const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(read('Dockerfile'))![1]) as string[];
  const exec = /^ExecStart=(.*)$/m.exec(read('config/hearth.service'))![1];

  it('are the same for npm start, the Docker image and the systemd unit', () => {
    expect(start).toBe(`node ${hearthNodeFlags().join(' ')} dist/src/main.js`);
    expect(cmd).toEqual(['node', ...hearthNodeFlags(), 'dist/src/main.js']);
    expect(exec).toBe(`/usr/bin/node ${hearthNodeFlags().join(' ')} dist/src/main.js`);
  });

  it('give V8 a young generation of 32 MB semi-spaces (fewer objects promoted under load)', () => {
    expect(hearthNodeFlags()).toEqual(['--max-semi-space-size=32']);
  });
});
