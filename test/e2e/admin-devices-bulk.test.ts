// `devices import` and `devices export` of the admin CLI as an operator runs them: a CSV and a
// JSON lines file imported, each new key written once to a 0600 file the server then accepts;
// bad files named by line with nothing imported; the export has no keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, withoutHearthSettings, type CliRun } from '../helpers/admin-cli.js';

const SLOW = { timeout: 600_000 };

describe('admin CLI: bulk devices', () => {
  let dir: string;
  let env: Record<string, string>;
  const run = cli(() => env);
  const file = (name: string, text: string) => (writeFileSync(join(dir, name), text), join(dir, name));
  const ok = (r: CliRun) => (expect(r.code, r.stderr).toBe(0), r);
  const count = async () =>
    ok(await run('devices', 'export', '1'))
      .stdout.trim()
      .split('\n')
      .filter(Boolean).length;
  let homeId: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-bulk-'));
    env = { ...withoutHearthSettings(), HEARTH_DATA_DIR: join(dir, 'data') };
    ok(await run('projects', 'create', 'bulk'));
    homeId = JSON.parse(ok(await run('homes', 'create', '1', 'Flat', '--json')).stdout).id;
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports a CSV file and a JSON lines file, writing each key once to a 0600 file', SLOW, async () => {
    const csv = file('a.csv', `name,class,tag,homeId,description\nlamp-1,default,bulk,${homeId},"hall, upstairs"\nlamp-2,default,bulk,,\n`);
    const r = ok(await run('devices', 'import', '1', csv, '--out', join(dir, 'a.keys'), '--json'));
    expect(JSON.parse(r.stdout)).toMatchObject({ imported: 2 });
    expect(statSync(join(dir, 'a.keys')).mode & 0o777).toBe(0o600);
    const keys = readFileSync(join(dir, 'a.keys'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(keys).toEqual([
      { line: 2, id: expect.any(Number), name: 'lamp-1', apiKey: expect.stringMatching(/^dk\./), claimCode: expect.any(String) },
      { line: 3, id: expect.any(Number), name: 'lamp-2', apiKey: expect.stringMatching(/^dk\./), claimCode: expect.any(String) },
    ]);
    const jsonl = file(
      'b.jsonl',
      `{"name":"plug-1","class":"default","homeId":${homeId}}\n\n{"name":"plug-2","class":"default","tag":"t","description":"d"}\n`,
    );
    expect(JSON.parse(ok(await run('devices', 'import', '1', jsonl, '--out', join(dir, 'b.keys'), '--json')).stdout)).toMatchObject({ imported: 2 });
    // the export: every device, no keys or claim codes, in JSON lines and CSV
    const exp = ok(await run('devices', 'export', '1')).stdout;
    const rows = exp
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((d) => d.name)).toEqual(['lamp-1', 'lamp-2', 'plug-1', 'plug-2']);
    expect(rows[0]).toMatchObject({ class: 'default', tag: 'bulk', homeId, description: 'hall, upstairs' });
    for (const k of keys) expect(exp).not.toContain(k.apiKey);
    expect(exp).not.toMatch(/apiKey|claimCode/);
    const csvOut = ok(await run('devices', 'export', '1', '--format', 'csv')).stdout.split('\n');
    expect(csvOut[0]).toBe('id,name,class,tag,homeId,description,creationTime');
    expect(csvOut[1]).toContain(`lamp-1,default,bulk,${homeId},"hall, upstairs",`);
    // the device list (a domain read) shows the home and the sealed key opens again
    const listed = JSON.parse(ok(await run('devices', 'list', '1', '--json')).stdout);
    expect(listed.find((d: { name: string }) => d.name === 'lamp-1')).toMatchObject({ homeId, apiKey: keys[0].apiKey, claimCode: keys[0].claimCode });
  });

  it('refuses bad files naming each bad line, and imports nothing of them', SLOW, async () => {
    const before = await count();
    const cases: [string, string, RegExp[]][] = [
      ['c1.csv', 'name,class\nok-1,default\nok-2,nosuchclass\n', [/line 3: unknown device class "nosuchclass"/]],
      [
        'c2.csv',
        'name,class,homeId\nok-1,default,999999\nok-2,default,abc\n',
        [/line 2: no home 999999 in project 1/, /line 3: homeId must be a positive integer, got "abc"/],
      ],
      ['c3.csv', 'name,class\nok-1,default\n,default\nok-3,\n', [/line 3: name is missing/, /line 4: class is missing/]],
      ['c4.csv', 'name,colour\nx,red\n', [/line 1: the header must name the columns name, class/]],
      ['c5.csv', 'name,class\n"open,default\n', [/line 2: an unclosed quote/]],
      ['j1.jsonl', '{"name":"ok-1","class":"default"}\n{"name":"ok-2",\n{"class":"default"}\n', [/line 2: not a JSON object/, /line 3: name is missing/]],
      ['j2.jsonl', '{"name":"ok-1","class":"default","colour":"red"}\n', [/line 1: unknown field colour/]],
      ['empty.csv', '\n', [/the file has no devices/]],
    ];
    for (const [name, text, messages] of cases) {
      const r = await run('devices', 'import', '1', file(name, text), '--out', join(dir, `${name}.keys`));
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(/nothing imported/);
      for (const m of messages) expect(r.stderr, name).toMatch(m);
      // validated before the key file is created
      expect(() => statSync(join(dir, `${name}.keys`)), name).toThrow();
    }
    expect(await count()).toBe(before);
  });

  it('never overwrites the key file, and says what it needs', SLOW, async () => {
    const before = await count();
    const csv = file('d.csv', 'name,class\nx-1,default\n');
    writeFileSync(join(dir, 'taken.keys'), 'earlier keys\n');
    const r = await run('devices', 'import', '1', csv, '--out', join(dir, 'taken.keys'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/taken\.keys exists: it is not overwritten/);
    expect(readFileSync(join(dir, 'taken.keys'), 'utf8')).toBe('earlier keys\n');
    const noOut = await run('devices', 'import', '1', csv);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/missing --out <file>/);
    const fmt = await run('devices', 'export', '1', '--format', 'xml');
    expect(fmt.stderr).toMatch(/--format must be jsonl or csv/);
    expect(await count()).toBe(before);
  });
});
