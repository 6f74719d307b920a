// The README's shell blocks, run as written: every ```sh block of README.md itself (so the README
// cannot drift), in order, in one bash, against a fresh Hearth process started the way the
// README's "Start" section starts it, on free ports given through HEARTH_HTTP_PORT /
// HEARTH_MQTT_PORT, in a directory holding its `data/`. The quickstart (between
// `<!-- quickstart:start -->` and `<!-- quickstart:end -->`) comes first; the other blocks follow
// it as a reader would paste them. A block that cannot run here carries a visible note just above
// it, `*Not run by the README test: <why>.*`; every other block must run, and the test checks that
// each one did.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearthProcess, type HearthProcess } from '../helpers/process.js';
import { freePort } from '../helpers/redis-server.js';
import { docBlocks, runDocScript } from '../helpers/doc-blocks.js';

const ROOT = resolve(import.meta.dirname, '../..');

describe('README quickstart', () => {
  let server: HearthProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-readme-'));
    mkdirSync(join(dir, 'data'));
    // the one-liners `require("ws")` as they would in the repository directory
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    // a busy machine (Chromium in a neighbouring test) may take a while to start a process
    server = await startHearthProcess({ dataDir: join(dir, 'data'), env: { HEARTH_WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' }, timeoutMs: 120_000 });
  }, 180_000);
  afterAll(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds each block and its not-run note', () => {
    const blocks = docBlocks(
      'a\n\n```sh\necho a\n```\n\n*Not run by the README test: it needs\na cluster.*\n\n```bash\nnpm start\n```\n\n```\ndiagram\n```\n\n<!-- quickstart:start -->\n```sh\necho q\n```\n<!-- quickstart:end -->\n',
    );
    expect(blocks).toEqual([
      { line: 3, text: 'echo a\n', marked: false },
      { line: 10, text: 'npm start\n', marked: false, notRun: 'it needs a cluster.' },
      { line: 19, text: 'echo q\n', marked: true },
    ]);
  });

  it("every block of the README is run or says why not; the quickstart's are all run", () => {
    const blocks = docBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    // positive control: the quickstart and the other sections' blocks are found
    expect(blocks.filter((b) => b.marked).length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => !b.marked && !b.notRun).length).toBeGreaterThanOrEqual(1);
    expect(blocks.filter((b) => b.marked && b.notRun)).toEqual([]);
    for (const b of blocks.filter((x) => x.notRun)) expect(b.notRun!.length, `README.md:${b.line}`).toBeGreaterThan(20);
  });

  it('runs verbatim: device to cloud, cloud to device, a webhook, the live stream, then every other block', async () => {
    const blocks = docBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')).filter((b) => !b.notRun);
    // the quickstart first (the others use what it made), then the rest in the README's order;
    // after each block a line that says it ran to its end
    const ordered = [...blocks.filter((b) => b.marked), ...blocks.filter((b) => !b.marked)];
    const script = ordered.map((b) => `${b.text}\necho "readme block at line ${b.line} ran"\n`).join('\n');
    const receiverPort = await freePort();
    const { code, out, err } = await runDocScript(script, dir, {
      HEARTH_HTTP_PORT: String(server.httpPort),
      HEARTH_MQTT_PORT: String(server.mqttPort),
      RECEIVER_PORT: String(receiverPort),
    });
    const why = `exit ${code}\nstdout:\n${out}\nstderr:\n${err}\nserver:\n${server.output().slice(-2000)}`;
    expect(code, why).toBe(0);
    expect(out, why).toMatch(/"type":"project key"/);
    expect(out, why).toMatch(/device \d+ in home \d+/);
    expect(out, why).toMatch(/"url":"http:\/\/127\.0\.0\.1:\d+\/hook"/);
    expect(out, why).toMatch(/\/devices\/\d+\/command \{"action":"light-on","parameters":\{"level":80\}\}/);
    const webhook = /^webhook: (.*)$/m.exec(out)?.[1];
    const stream = /^stream: +(.*)$/m.exec(out)?.[1];
    expect(JSON.parse(webhook!), why).toMatchObject({ eventType: 'button-pressed', eventData: { button: 1 }, homeId: expect.any(Number) });
    expect(JSON.parse(stream!), why).toMatchObject({ eventType: 'button-pressed', eventData: { button: 1 }, originDeviceId: expect.any(Number) });
    // every block ran to its end, in order
    expect(
      [...out.matchAll(/^readme block at line (\d+) ran$/gm)].map((m) => Number(m[1])),
      why,
    ).toEqual(ordered.map((b) => b.line));
    // the Console section's block: the device went into the new home, and the module was made
    expect(out, why).toMatch(/^\{"id":\d+,"homeId":\d+\}$/m);
    expect(out, why).toMatch(/^\{"id":"my-hook"\}$/m);
  }, 180_000);
});
