// The container image's command, outside a container (this machine has no container engine, and
// CI does not build the image). CMD, ENV, WORKDIR, USER, VOLUME, EXPOSE and HEALTHCHECK are read
// from the Dockerfile itself, so this test follows it: the runtime stage's files (dist/ from the
// build) are laid out in a directory standing for WORKDIR, the CMD runs there with the image's
// environment, a temp directory standing for the /data volume and free ports standing for the
// published ones, and it must become healthy; then the HEALTHCHECK command must exit 0 against
// it (and not against a port nobody listens on).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startHearthProcess, removeDataDir, type HearthProcess } from '../helpers/process.js';
import { freePort } from '../helpers/redis-server.js';

const ROOT = resolve(import.meta.dirname, '../..');

interface Image {
  env: Record<string, string>;
  workdir: string;
  user: string;
  volumes: string[];
  expose: string[];
  cmd: string[];
  healthcheck: string[];
  /** what the runtime stage copies from the build stage, as [source, destination] */
  copies: [string, string][];
}

/** the runtime stage (the last FROM) of the Dockerfile */
function readImage(): Image {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages = text.split(/^FROM /m);
  const lines = stages[stages.length - 1].split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
  const img: Image = { env: {}, workdir: '/', user: 'root', volumes: [], expose: [], cmd: [], healthcheck: [], copies: [] };
  for (const line of lines) {
    const [, word, rest] = /^(\w+)\s+(.*)$/.exec(line.trim()) ?? [];
    if (word === 'ENV') for (const m of rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) img.env[m[1]] = m[2].replace(/^"|"$/g, '');
    else if (word === 'WORKDIR') img.workdir = rest.trim();
    else if (word === 'USER') img.user = rest.trim();
    else if (word === 'VOLUME') img.volumes.push(...rest.trim().split(/\s+/));
    else if (word === 'EXPOSE') img.expose.push(...rest.trim().split(/\s+/));
    else if (word === 'CMD') img.cmd = JSON.parse(rest);
    else if (word === 'HEALTHCHECK') img.healthcheck = JSON.parse(rest.replace(/^.*?\bCMD\s+/, ''));
    else if (word === 'COPY' && rest.startsWith('--from=')) {
      const [, from, to] = rest.split(/\s+/);
      img.copies.push([from, to]);
    }
  }
  return img;
}

const image = readImage();
let workdir: string;
let p: HearthProcess | undefined;

beforeAll(() => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  // stands for WORKDIR: inside the project, so the built modules find node_modules and the
  // package.json ("type": "module") the image copies next to them
  workdir = mkdtempSync(join(ROOT, '.tmp', 'image-'));
  execFileSync(process.execPath, ['scripts/build.mjs', '--outdir', join(workdir, 'dist')], { cwd: ROOT, stdio: 'pipe' });
}, 120_000);

afterAll(async () => {
  if (p) {
    await p.kill();
    removeDataDir(p);
  }
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

function healthcheck(env: Record<string, string>): number | null {
  const [command, ...args] = image.healthcheck;
  expect(command).toBe('node');
  const r = spawnSync(process.execPath, args, { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 });
  return r.status;
}

describe('the container image', () => {
  it('runs as a user other than root, keeps its data in the volume, exposes the ports it listens on', () => {
    expect(image.user).not.toMatch(/^(root|0)?$/);
    expect(image.volumes).toContain(image.env.HEARTH_DATA_DIR);
    expect(image.expose).toEqual(expect.arrayContaining([image.env.HEARTH_HTTP_PORT, image.env.HEARTH_MQTT_PORT]));
    expect(image.cmd[0]).toBe('node');
    // what the CMD runs is among what the runtime stage copies from the build
    expect(image.copies).toContainEqual([expect.stringMatching(/\/dist$/), expect.stringMatching(/^(\.\/)?dist$/)]);
    expect(image.cmd[1]).toMatch(/^dist\//);
    expect(existsSync(join(workdir, image.cmd[1]))).toBe(true);
  });

  it('starts with the image command and environment, becomes healthy, and its HEALTHCHECK passes', async () => {
    // the image's environment, but the volume and the published ports are the test's (the helper
    // sets those); the log level is the image's default (config/default.json)
    const { HEARTH_HTTP_PORT, HEARTH_MQTT_PORT, HEARTH_DATA_DIR, ...env } = image.env;
    expect([HEARTH_HTTP_PORT, HEARTH_MQTT_PORT, HEARTH_DATA_DIR].every(Boolean)).toBe(true);
    p = await startHearthProcess({ argv: image.cmd.slice(1), cwd: workdir, env: { ...env, HEARTH_LOG_LEVEL: 'info' }, timeoutMs: 120_000 });
    expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
    // the image logs JSON for a collector (HEARTH_LOG_FORMAT), its first start makes the admin key
    const lines = p
      .output()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.some((l) => /^HTTP API on http:\/\/0\.0\.0\.0:/.test(l.msg))).toBe(true);
    expect(readFileSync(join(p.dataDir, 'admin.key'), 'utf8')).toMatch(/^pk\./);

    expect(healthcheck({ ...image.env, HEARTH_HTTP_PORT: String(p.httpPort) })).toBe(0);
    // and it can fail: nobody listens on a fresh free port
    expect(healthcheck({ ...image.env, HEARTH_HTTP_PORT: String(await freePort()) })).not.toBe(0);
  }, 180_000);
});
