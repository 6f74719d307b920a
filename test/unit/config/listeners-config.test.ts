// The settings of the listeners, proxies and CORS (docs/operations.md#configuration) as loadConfig and start-up read
// them: a bad value is one line naming the variable; a misspelled variable is reported with the
// closest real name.
import { describe, expect, it } from 'vitest';
import { loadConfig, unknownVariables, ConfigError } from '../../../src/config/load.js';
import { checkListeners } from '../../../src/listeners/index.js';
import { tlsFilesOf } from '../../../src/listeners/tls.js';

const oneLineNaming = (fn: () => unknown, variable: string) => {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  expect(message).toContain(variable);
  return message;
};

describe('listener, TLS, proxy and CORS settings', () => {
  it('defaults: plain listeners on, TLS off, HTTPS 8443, MQTTS 8883, no trusted proxy, CORS *', () => {
    const c = loadConfig({});
    expect(c.http.enabled).toBe(true);
    expect(c.mqtt.enabled).toBe(true);
    expect(c.https.port).toBe(8443);
    expect(c.mqtts.port).toBe(8883);
    expect(c.tls).toEqual({ certFile: null, keyFile: null, caFile: null, clientCertificates: 'off' });
    expect(c.limits.unauthenticatedSocketsPerAddress).toBe(100);
    expect(c.limits.connectRatePerSecond).toBe(500);
    expect(loadConfig({ HEARTH_LIMITS_CONNECT_RATE_PER_SECOND: '0' }).limits.connectRatePerSecond).toBe(0);
    expect(c.limits.connectsInFlight).toBe(500);
    // the MQTT listeners' accept queue (docs/operations.md#connect-storms); Node's own default is 511
    expect(c.mqtt.backlog).toBe(4096);
    expect(loadConfig({ HEARTH_MQTT_BACKLOG: '16384' }).mqtt.backlog).toBe(16384);
    expect(loadConfig({ HEARTH_LIMITS_CONNECTS_IN_FLIGHT: '0' }).limits.connectsInFlight).toBe(0);
    expect(tlsFilesOf(c)).toBeUndefined();
    expect(c.trustedProxies).toEqual([]);
    expect(c.corsOrigins).toEqual(['*']);
  });

  it('reads the variables of docs/operations.md#configuration', () => {
    const c = loadConfig({
      HEARTH_TLS_CERT_FILE: '/etc/hearth/cert.pem',
      HEARTH_TLS_KEY_FILE: '/etc/hearth/key.pem',
      HEARTH_TLS_CA_FILE: '/etc/hearth/ca.pem',
      HEARTH_HTTPS_PORT: '9443',
      HEARTH_MQTTS_PORT: '9883',
      HEARTH_HTTP_ENABLED: 'false',
      HEARTH_MQTT_ENABLED: 'false',
      HEARTH_TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7,::1, fd00::/8',
      HEARTH_CORS_ORIGINS: 'https://app.example.com,http://localhost:5173',
    });
    expect(tlsFilesOf(c)).toEqual({ certFile: '/etc/hearth/cert.pem', keyFile: '/etc/hearth/key.pem', caFile: '/etc/hearth/ca.pem' });
    expect([c.https.port, c.mqtts.port, c.http.enabled, c.mqtt.enabled]).toEqual([9443, 9883, false, false]);
    expect(c.trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.7', '::1', 'fd00::/8']);
    expect(c.corsOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(() => checkListeners(c)).not.toThrow();
  });

  it.each([
    ['HEARTH_HTTPS_PORT', 'abc'],
    ['HEARTH_MQTTS_PORT', '70000'],
    ['HEARTH_HTTP_ENABLED', 'maybe'],
    ['HEARTH_MQTT_ENABLED', 'off'],
    ['HEARTH_TLS_CERT_FILE', ''],
    ['HEARTH_TLS_CLIENT_CERTIFICATES', 'required'],
    ['HEARTH_LIMITS_UNAUTHENTICATED_SOCKETS_PER_ADDRESS', '0'],
    ['HEARTH_LIMITS_CONNECT_RATE_PER_SECOND', '-1'],
    ['HEARTH_LIMITS_CONNECT_RATE_PER_SECOND', '2.5'],
    ['HEARTH_LIMITS_CONNECTS_IN_FLIGHT', '-1'],
    ['HEARTH_MQTT_BACKLOG', '0'],
    ['HEARTH_MQTT_BACKLOG', 'many'],
    ['HEARTH_TRUSTED_PROXIES', '10.0.0.0/33'],
    ['HEARTH_TRUSTED_PROXIES', '10.0.0.1,proxy.example.com'],
    ['HEARTH_TRUSTED_PROXIES', '127.1'],
    ['HEARTH_CORS_ORIGINS', 'https://app.example.com/path'],
    ['HEARTH_CORS_ORIGINS', 'app.example.com'],
    ['HEARTH_CORS_ORIGINS', '*,https://app.example.com'],
    ['HEARTH_CORS_ORIGINS', 'ftp://files.example.com'],
  ])('%s=%j is one line naming the variable', (name, value) => {
    const message = oneLineNaming(() => loadConfig({ [name]: value }), name);
    expect(message).toContain(JSON.stringify(value));
  });

  it('client certificates: optional is read, and needs TLS (one line naming the variable)', () => {
    const files = { HEARTH_TLS_CERT_FILE: '/c.pem', HEARTH_TLS_KEY_FILE: '/k.pem' };
    expect(loadConfig({ ...files, HEARTH_TLS_CLIENT_CERTIFICATES: 'optional' }).tls.clientCertificates).toBe('optional');
    expect(() => checkListeners(loadConfig({ ...files, HEARTH_TLS_CLIENT_CERTIFICATES: 'optional' }))).not.toThrow();
    oneLineNaming(() => checkListeners(loadConfig({ HEARTH_TLS_CLIENT_CERTIFICATES: 'optional' })), 'HEARTH_TLS_CLIENT_CERTIFICATES');
  });

  it('an empty HEARTH_TRUSTED_PROXIES is no proxy; an empty HEARTH_CORS_ORIGINS is an error', () => {
    expect(loadConfig({ HEARTH_TRUSTED_PROXIES: '' }).trustedProxies).toEqual([]);
    oneLineNaming(() => loadConfig({ HEARTH_CORS_ORIGINS: '' }), 'HEARTH_CORS_ORIGINS');
  });

  it('a certificate without its key, or a key without its certificate, is one line naming the missing one', () => {
    expect(oneLineNaming(() => tlsFilesOf(loadConfig({ HEARTH_TLS_CERT_FILE: '/c.pem' })), 'HEARTH_TLS_KEY_FILE')).toMatch(/^HEARTH_TLS_KEY_FILE: /);
    expect(oneLineNaming(() => tlsFilesOf(loadConfig({ HEARTH_TLS_KEY_FILE: '/k.pem' })), 'HEARTH_TLS_CERT_FILE')).toMatch(/^HEARTH_TLS_CERT_FILE: /);
    expect(oneLineNaming(() => tlsFilesOf(loadConfig({ HEARTH_TLS_CA_FILE: '/ca.pem' })), 'HEARTH_TLS_CA_FILE')).toMatch(/^HEARTH_TLS_CA_FILE: /);
  });

  it('turning plain HTTP off without TLS leaves nothing to serve: one line naming HEARTH_HTTP_ENABLED', () => {
    oneLineNaming(() => checkListeners(loadConfig({ HEARTH_HTTP_ENABLED: 'false' })), 'HEARTH_HTTP_ENABLED');
    expect(() => checkListeners(loadConfig({ HEARTH_MQTT_ENABLED: 'false' }))).not.toThrow();
  });
});

describe('unknown HEARTH_* variables', () => {
  it('names the closest setting for a misspelling', () => {
    expect(unknownVariables({ HEARTH_HTTPPORT: '8080' })).toEqual([{ name: 'HEARTH_HTTPPORT', closest: 'HEARTH_HTTP_PORT' }]);
    expect(unknownVariables({ HEARTH_TLS_CERT: '/c.pem' })).toEqual([{ name: 'HEARTH_TLS_CERT', closest: 'HEARTH_TLS_CERT_FILE' }]);
    expect(unknownVariables({ HEARTH_TRUSTED_PROXY: '10.0.0.1' })).toEqual([{ name: 'HEARTH_TRUSTED_PROXY', closest: 'HEARTH_TRUSTED_PROXIES' }]);
  });

  it('names none when nothing is close', () => {
    expect(unknownVariables({ HEARTH_FROBNICATE_EVERYTHING: '1' })).toEqual([{ name: 'HEARTH_FROBNICATE_EVERYTHING' }]);
  });

  it('is silent about real settings, HEARTH_CONFIG, test and benchmark variables, and other variables', () => {
    expect(
      unknownVariables({
        HEARTH_HTTP_PORT: '1',
        HEARTH_LIMITS_HTTP_BODY_BYTES: '1',
        HEARTH_TLS_CERT_FILE: '/c',
        HEARTH_CORS_ORIGINS: '*',
        HEARTH_CONFIG: '/etc/hearth.json',
        HEARTH_TEST_DATABASE_URL: 'postgres://x',
        HEARTH_TEST_RUN_ID: 'x',
        HEARTH_BENCH_REDIS_URL: 'redis://x',
        PATH: '/usr/bin',
        HTTP_PORT: '1',
      }),
    ).toEqual([]);
  });
});
