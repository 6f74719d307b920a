// docs/webhooks.md "Targets": private addresses are refused at registration and on the address dialled.
// Only loopback is ever dialled here; every other address is refused before any connection.
import type { LookupAddress } from 'node:dns';
import { describe, expect, it, onTestFinished } from 'vitest';
import { checkTargetUrl, createWebhookClient } from '../../../src/worker/webhook/client/http-client.js';
import { isAllowedAddress } from '../../../src/domain/webhook/target-policy.js';
import { guardedLookup } from '../../../src/worker/webhook/client/guarded-lookup.js';
import { systemResolver } from '../../../src/adapters/dns-resolver.js';
import type { Resolver } from '../../../src/ports/resolver.js';
import { startServer, type TestServer } from './servers.js';

function strictClient() {
  // the refusal comes before any connection; the timeout only bounds a hang (1 s can run out on a
  // loaded machine while a name resolves, and would answer TIMEOUT instead)
  const c = createWebhookClient({ allowPrivateTargets: false, timeoutMs: 15_000 });
  onTestFinished(() => c.close());
  return c;
}

describe('isAllowedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '224.0.0.1',
    '239.255.255.250',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    'fec0::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:0.0.0.0',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::1',
    '2001::1',
    'not-an-ip',
    '',
  ])('refuses %s', (address) => expect(isAllowedAddress(address)).toBe(false));

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.63.255.255', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => expect(isAllowedAddress(address)).toBe(true),
  );
});

describe('checkTargetUrl (registration)', () => {
  const refusedUrls = [
    'http://127.0.0.1:8080/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://10.0.0.1/',
    'https://169.254.169.254/latest',
    'http://100.64.1.1/',
    'http://0x7f.1/',
    'http://2130706433/',
    'http://localhost/',
    'http://LOCALHOST/',
  ];

  it.each(refusedUrls)('refuses %s', async (url) => {
    await expect(checkTargetUrl(url, false, systemResolver)).rejects.toMatchObject({
      code: 'TARGET_NOT_ALLOWED',
      message: expect.stringContaining('allowPrivateTargets'),
    });
  });

  it.each(['ftp://example.com/x', 'file:///etc/passwd', 'ws://example.com/', 'javascript:alert(1)', 'not a url'])(
    'refuses %s even when private targets are allowed',
    async (url) => {
      await expect(checkTargetUrl(url, true, systemResolver)).rejects.toMatchObject({ code: 'TARGET_NOT_ALLOWED' });
    },
  );

  it('refuses a name that does not resolve', async () => {
    await expect(checkTargetUrl('http://no-such-host.invalid/', false, systemResolver)).rejects.toMatchObject({
      code: 'TARGET_NOT_ALLOWED',
      message: expect.stringContaining('cannot be resolved'),
    });
  });

  it('vets every address the Resolver port gives for a name, and refuses a name with none', async () => {
    // a resolver with fixed answers, as a hosts file would give them: the policy judges what it is told
    const hosts: Record<string, string[]> = {
      'public.test': ['93.184.215.14', '2606:4700:4700::1111'],
      'mixed.test': ['93.184.215.14', '10.1.2.3'],
      'none.test': [],
    };
    const fixed: Resolver = {
      lookupAll: async (host) => (hosts[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    };
    await expect(checkTargetUrl('https://public.test/hook', false, fixed)).resolves.toBeUndefined();
    await expect(checkTargetUrl('https://mixed.test/hook', false, fixed)).rejects.toMatchObject({
      code: 'TARGET_NOT_ALLOWED',
      message: expect.stringContaining('resolves to 10.1.2.3'),
    });
    await expect(checkTargetUrl('https://none.test/hook', false, fixed)).rejects.toMatchObject({ message: expect.stringContaining('has no address') });
    // allowed private targets: no lookup at all
    const never: Resolver = { lookupAll: () => Promise.reject(new Error('looked up')) };
    await expect(checkTargetUrl('https://mixed.test/hook', true, never)).resolves.toBeUndefined();
  });

  it('accepts public literal addresses without connecting, and anything http(s) when allowed', async () => {
    await expect(checkTargetUrl('https://93.184.215.14/hook', false, systemResolver)).resolves.toBeUndefined();
    await expect(checkTargetUrl('http://[2606:4700:4700::1111]:8443/', false, systemResolver)).resolves.toBeUndefined();
    await expect(checkTargetUrl('http://127.0.0.1:9/', true, systemResolver)).resolves.toBeUndefined();
  });
});

describe('send() with private targets refused', () => {
  let server: TestServer;
  const urls = () => [
    `http://127.0.0.1:${server.port}/`,
    `http://localhost:${server.port}/`, // a real name resolving to loopback: refused by the dial-time lookup
    `http://[::ffff:127.0.0.1]:${server.port}/`,
    'http://[::1]/',
    'http://10.0.0.1/',
    'http://169.254.169.254/',
  ];

  it('refuses every private target, and no connection reaches the server', async () => {
    server = await startServer((_req, res) => res.end('reached'));
    const c = strictClient();
    for (const url of urls()) {
      const result = await c.send({ url, headers: {}, body: '{}' });
      expect(result, url).toMatchObject({ ok: false, error: 'TARGET_NOT_ALLOWED', responseBody: '' });
      await expect(checkTargetUrl(url, false, systemResolver), url).rejects.toMatchObject({ code: 'TARGET_NOT_ALLOWED' });
    }
    expect(server.connections()).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses ftp:// whatever the policy', async () => {
    for (const allowPrivateTargets of [false, true]) {
      const c = createWebhookClient({ allowPrivateTargets });
      onTestFinished(() => c.close());
      expect(await c.send({ url: 'ftp://127.0.0.1/x', headers: {}, body: '' })).toMatchObject({ ok: false, error: 'TARGET_NOT_ALLOWED' });
    }
  });
});

describe('guardedLookup (the dial-time check)', () => {
  const lookup = (options: { all?: boolean; family?: number }) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((resolve) =>
      guardedLookup('localhost', options, (err, address) => resolve({ err, address })),
    );

  it('refuses loopback answers in both call shapes', async () => {
    for (const options of [{ all: true }, {}, { family: 4 }]) {
      const { err } = await lookup(options);
      expect(err).toMatchObject({ code: 'TARGET_NOT_ALLOWED' });
    }
  });

  it('passes resolver errors through', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup('no-such-host.invalid', {}, (e) => resolve(e)));
    expect(err?.code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });
});
