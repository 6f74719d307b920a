// The admin CLI's answer to an unknown command (docs/operations.md#admin-cli): exit code 2, the
// usage, and the closest real command when the word is near enough to be a typo of one; none
// when it is not. In process: an unknown command loads nothing of the store.
import { describe, expect, it } from 'vitest';
import { main } from '../../../scripts/admin/cli.js';

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err };
}

describe('admin CLI: an unknown command', () => {
  it.each([
    [['projets', 'list'], 'unknown command "projets"; did you mean "projects list"?'],
    [['devics'], 'unknown command "devics"; did you mean "devices"?'],
    [['backpu', 'x.db'], 'unknown command "backpu"; did you mean "backup"?'],
    [['keys', 'revok', 'k1'], 'unknown command "keys revok"; did you mean "keys revoke"?'],
    [['members', 'setrole', '1'], 'unknown command "members setrole"; did you mean "members set-role"?'],
    // a group's command without its group, when only one group has it
    [['set-role', '1'], 'unknown command "set-role"; did you mean "members set-role"?'],
  ])('%j suggests the closest command', async (argv, message) => {
    const r = await run(...argv);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe(`error: ${message}`);
    expect(r.err).toContain('usage: npm run admin --');
    expect(r.out).toBe('');
  });

  it.each([[['frob']], [['x']], [['projects', 'zzzzzz']], [['create']], [['toString']], [['projects', 'constructor']]])(
    '%j is not near any command: no suggestion',
    async (argv) => {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      // positive control: it is reported as unknown
      expect(r.err).toMatch(/^error: unknown command "/);
      expect(r.err).not.toMatch(/did you mean/);
      // the usage lists the commands
      expect(r.err).toContain('projects list');
    },
  );

  it('says it in the JSON error with --json', async () => {
    const r = await run('projetcs', 'list', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.err)).toEqual({ reason: 'USAGE_ERROR', data: { message: 'unknown command "projetcs"; did you mean "projects list"?' } });
  });
});
