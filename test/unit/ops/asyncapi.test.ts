// /asyncapi.json (docs/devices.md): an AsyncAPI 3.0 document of the MQTT topics and WebSocket
// channels, generated from the topic table the broker's ACL reads, valid by @asyncapi/parser.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser, DiagnosticSeverity } from '@asyncapi/parser';
import { makeTestApi, type TestApi } from '../../helpers/api.js';
import { DEVICE_TOPICS, deviceTopic } from '../../../src/protocol/device-topics.js';
import { publishKindOf, subscriptionAllowed } from '../../../broker/topics.js';
import * as v from 'valibot';
import { MESSAGES } from '../../../src/http/asyncapi.js';

const errorsOf = async (doc: unknown) => {
  const { diagnostics } = await new Parser().parse(JSON.stringify(doc));
  return diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error).map((d) => `${d.path.join('.')}: ${d.message}`);
};

describe('AsyncAPI document', () => {
  let t: TestApi;
  let doc: any;
  beforeAll(async () => {
    t = await makeTestApi();
    const r = await t.req('GET', '/asyncapi.json');
    expect(r.status).toBe(200);
    doc = r.body;
  });
  afterAll(() => t.close());

  it('validates as AsyncAPI 3.0 with @asyncapi/parser', async () => {
    expect(doc.asyncapi).toBe('3.0.0');
    expect(await errorsOf(doc)).toEqual([]);
  });

  it('has a channel for every topic of the table, and the ACL allows exactly what the channels say', () => {
    const addresses = Object.values(doc.channels).map((c: any) => c.address);
    for (const [name, topic] of Object.entries(DEVICE_TOPICS)) {
      expect(addresses, name).toContain(topic.address);
      const concrete = deviceTopic(name as keyof typeof DEVICE_TOPICS, 42, 'x');
      expect(publishKindOf(42, concrete) !== undefined, `publish ${concrete}`).toBe(topic.device !== 'subscribe');
      expect(subscriptionAllowed(42, concrete), `subscribe ${concrete}`).toBe(topic.device !== 'publish');
    }
  });

  it('names the WebSocket channels, with payload schemas and examples for every message', () => {
    const addresses = Object.values(doc.channels).map((c: any) => c.address);
    expect(addresses).toEqual(
      expect.arrayContaining(['/userSession/websocket', '/devices/{deviceId}/kv', '/devices/{deviceId}/command', '/devices/{deviceId}/commandAck']),
    );
    for (const [name, m] of Object.entries(doc.components.messages) as [string, any][]) {
      expect(m.payload?.$ref, name).toMatch(/^#\/components\/schemas\//);
      expect(m.examples?.length, name).toBeGreaterThan(0);
    }
    expect(doc.components.schemas.DeviceEvent.required).toEqual(['eventType', 'eventData']);
    // the outbox: the device answers on commandAck; the command it receives carries its id
    expect(Object.keys(doc.components.schemas.CommandAck.properties)).toEqual(['id', 'status', 'result']);
    expect(doc.components.schemas.OutboxCommand.required).toContain('id');
    expect(doc.components.schemas.KvReload.properties.rev.description).toMatch(/revision/);
  });

  it('has message examples that the payload schemas accept', () => {
    const bad = Object.entries(MESSAGES)
      .filter(([, m]) => !v.safeParse(m.schema, m.example).success)
      .map(([n]) => n);
    expect(Object.keys(MESSAGES).length).toBeGreaterThan(8);
    expect(bad).toEqual([]);
    // and a wrong one is refused (the check can fail)
    expect(v.safeParse(MESSAGES.Command.schema, { action: 'X' }).success).toBe(false);
  });

  it('the validator rejects a broken document (the check above can fail)', async () => {
    const broken = structuredClone(doc);
    broken.operations.receive_mqtt_event.channel = { $ref: '#/channels/nope' };
    delete broken.info.title;
    expect((await errorsOf(broken)).length).toBeGreaterThan(0);
  });
});
