// /asyncapi.json: the device side as AsyncAPI 3.0, generated from the topic table the broker's ACL
// reads (src/protocol/device-topics.ts) and the valibot schemas that check the payloads. The
// document describes Hearth: `receive` is what Hearth takes from devices, `send` what it sends.
// docs/devices.md
import * as v from 'valibot';
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { DEVICE_TOPICS, type DeviceTopicName } from '../protocol/device-topics.js';
import { EventBodySchema } from '../domain/event/schemas.js';
import { EventSchema } from '../domain/event/list.js';
import { CommandBodySchema } from '../domain/command/schemas.js';
import { CommandAckSchema } from '../domain/command/outbox-schemas.js';
import { DataPostSchema } from '../domain/data/schemas.js';
import { KvItemSchema, KvKeySchema, KvValueSchema } from '../domain/kv/schemas.js';
import { describeField, exampleOf, type JsonSchema } from './openapi-fields.js';

const Rev = v.pipe(v.number(), v.integer(), v.minValue(0));

/** the KV sync messages (docs/devices.md#kv-sync) */
const KV_MESSAGES = {
  KvReload: v.object({ action: v.literal('reload'), rev: Rev, numItems: v.number(), items: v.array(KvItemSchema) }),
  KvSet: v.object({ action: v.literal('set'), rev: Rev, key: KvKeySchema, value: KvValueSchema }),
  KvDelete: v.object({ action: v.literal('delete'), rev: Rev, key: KvKeySchema }),
  KvSetRequest: v.object({ action: v.literal('set'), key: KvKeySchema, value: KvValueSchema }),
  KvDeleteRequest: v.object({ action: v.literal('delete'), key: KvKeySchema }),
  KvReloadRequest: v.object({ action: v.literal('reload') }),
};

const FIELD_TEXT: Record<string, string> = {
  action: 'What the message does',
  rev: "The store's revision after this change; grows by one on every change",
  numItems: 'How many pairs follow',
  items: 'Every pair of the store',
};

export interface MessageDef {
  schema: GenericSchema;
  summary: string;
  example: unknown;
}

/** the messages of the device side, by name (exported for the test that checks their examples) */
export const MESSAGES: Record<string, MessageDef> = {
  DeviceEvent: {
    schema: EventBodySchema,
    summary: 'An event from the device (over MQTT a missing eventData is taken as {})',
    example: { eventType: 'button-pressed', eventData: { button: 1 } },
  },
  Command: { schema: CommandBodySchema, summary: 'A command for the device', example: { action: 'light-on', parameters: { level: 80 } } },
  OutboxCommand: {
    schema: v.object({
      ...CommandBodySchema.entries,
      id: v.pipe(v.string(), v.description('The command id, to answer on commandAck (MODE clients ignore it)')),
    }),
    summary: "A command from the device's outbox (docs/devices.md#command-outbox): a command with its id",
    example: { action: 'light-on', parameters: { level: 80 }, id: '0mhx2k7a3-ab12cd000001' },
  },
  CommandAck: {
    schema: CommandAckSchema,
    summary: 'The device answers an outbox command: status ok (default) or error, with an optional result object',
    example: { id: '0mhx2k7a3-ab12cd000001', status: 'ok', result: { level: 80 } },
  },
  DataPost: { schema: DataPostSchema, summary: 'Data records, routed to the data sources of the project', example: { data: [{ temperature: 21.5 }] } },
  KvReload: {
    schema: KV_MESSAGES.KvReload,
    summary: 'The whole store: sent after the device subscribes, and when it asks',
    example: { action: 'reload', rev: 3, numItems: 1, items: [{ key: 'brightness', value: 80, modificationTime: '2026-11-22T12:00:00.123Z' }] },
  },
  KvSet: { schema: KV_MESSAGES.KvSet, summary: 'One pair was written (by anyone)', example: { action: 'set', rev: 4, key: 'brightness', value: 60 } },
  KvDelete: { schema: KV_MESSAGES.KvDelete, summary: 'One pair was deleted (by anyone)', example: { action: 'delete', rev: 5, key: 'brightness' } },
  KvSetRequest: {
    schema: KV_MESSAGES.KvSetRequest,
    summary: 'The device writes a pair (no rev; Hearth echoes it with one)',
    example: { action: 'set', key: 'brightness', value: 60 },
  },
  KvDeleteRequest: { schema: KV_MESSAGES.KvDeleteRequest, summary: 'The device deletes a pair', example: { action: 'delete', key: 'brightness' } },
  KvReloadRequest: { schema: KV_MESSAGES.KvReloadRequest, summary: 'The device asks for the whole store again', example: { action: 'reload' } },
  BulkData: { schema: v.unknown(), summary: 'Opaque bytes under a label', example: 'AAECAw==' },
  Event: {
    schema: EventSchema,
    summary: 'An event as stored, with the fields the service adds',
    example: {
      eventType: 'button-pressed',
      eventData: { button: 1 },
      timestamp: '2026-11-22T12:00:00.123Z',
      homeId: 7,
      originDeviceId: 42,
      originDeviceClass: 'default',
      originDeviceIp: '203.0.113.7',
    },
  },
};

/** which messages travel on each topic, in each direction (Hearth's view) */
const TOPIC_MESSAGES: Record<DeviceTopicName, { receive?: string[]; send?: string[] }> = {
  command: { send: ['Command', 'OutboxCommand'] },
  commandAck: { receive: ['CommandAck'] },
  kv: { receive: ['KvSetRequest', 'KvDeleteRequest', 'KvReloadRequest'], send: ['KvReload', 'KvSet', 'KvDelete'] },
  event: { receive: ['DeviceEvent'] },
  data: { receive: ['DataPost'] },
  bulkData: { receive: ['BulkData'] },
  bulkDataResponse: { send: ['BulkData'] },
};

function schemaOf(name: string, s: GenericSchema): JsonSchema {
  const js = toJsonSchema(s, { target: 'draft-07', errorMode: 'ignore', typeMode: 'input' }) as JsonSchema;
  delete js.$schema;
  const walk = (node: JsonSchema, path: string) => {
    for (const [k, p] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
      const full = path ? `${path}.${k}` : k;
      p.description ??= FIELD_TEXT[k] ?? describeField(name, full, k) ?? k;
      walk(p, full);
      if (p.items) walk(p.items as JsonSchema, full);
    }
  };
  walk(js, '');
  return js;
}

const PARAMS = {
  deviceId: { description: 'Id of the device (decimal); a device may use only its own', examples: ['42'] },
  label: { description: 'Bulk data label: one topic level, no wildcards', examples: ['firmware-log'] },
};

const paramsOf = (address: string) => Object.fromEntries(Object.entries(PARAMS).filter(([p]) => address.includes(`{${p}}`)));

/** a server's security requirement: one of the schemes of components.securitySchemes */
const scheme = (name: string) => ({ $ref: `#/components/securitySchemes/${name}` });

export function buildAsyncApi(info: { version: string; host?: string; mqttPort?: number; httpPort?: number }) {
  const host = info.host ?? 'localhost';
  const mqttHost = `${host}:${info.mqttPort ?? 1883}`;
  // MQTT over WebSocket and the WebSocket channels share the HTTP port
  const httpHost = `${host}:${info.httpPort ?? 8080}`;
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  const schemas: Record<string, unknown> = {};
  for (const [name, m] of Object.entries(MESSAGES)) {
    const js = schemaOf(name, m.schema);
    schemas[name] = js;
    messages[name] = {
      name,
      title: name,
      summary: m.summary,
      contentType: 'application/json',
      payload: { $ref: `#/components/schemas/${name}` },
      examples: [{ name: 'example', payload: m.example ?? exampleOf(js, (x) => x) }],
    };
  }
  const msgRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/messages/${n}` }]));

  // MQTT topics (over TCP, and over WebSocket at / and /mqtt)
  for (const [topic, def] of Object.entries(DEVICE_TOPICS) as [DeviceTopicName, (typeof DEVICE_TOPICS)[DeviceTopicName]][]) {
    const dirs = TOPIC_MESSAGES[topic];
    const all = [...new Set([...(dirs.receive ?? []), ...(dirs.send ?? [])])];
    const id = `mqtt_${topic}`;
    channels[id] = {
      address: def.address,
      title: `MQTT ${def.address}`,
      description: `${def.summary}. The device may ${def.device === 'both' ? 'publish and subscribe' : def.device} here.`,
      parameters: paramsOf(def.address),
      servers: [{ $ref: '#/servers/mqtt' }, { $ref: '#/servers/mqttWs' }],
      messages: msgRefs(all),
    };
    for (const action of ['receive', 'send'] as const) {
      const names = dirs[action];
      if (!names) continue;
      operations[`${action}_mqtt_${topic}`] = {
        action,
        title: `${action === 'receive' ? 'Device publishes to' : 'Device receives on'} ${def.address}`,
        summary: def.summary,
        description:
          action === 'receive'
            ? 'Hearth takes these from the device; an invalid payload is dropped and written to the general log, the connection stays.'
            : 'Hearth sends these to the device while it is subscribed (QoS at most 1).',
        channel: { $ref: `#/channels/${id}` },
        messages: names.map((n) => ({ $ref: `#/channels/${id}/messages/${n}` })),
        bindings: { mqtt: { qos: 1 } },
      };
    }
  }

  // WebSocket channels on the HTTP port
  const wsChannels = {
    ws_command: {
      address: '/devices/{deviceId}/command',
      title: 'Command WebSocket',
      description: "The device's command channel: one text frame per command. Credential: the device key in `Authorization: ModeCloud <key>`.",
      send: ['Command'],
    },
    ws_kv: {
      address: '/devices/{deviceId}/kv',
      title: 'Key-value WebSocket',
      description:
        '`reload` first, then every `set`/`delete`; the peer may send `set`, `delete` and `reload`. Credential: the device key, a project key or a member of its home.',
      send: ['KvReload', 'KvSet', 'KvDelete'],
      receive: ['KvSetRequest', 'KvDeleteRequest', 'KvReloadRequest'],
    },
    ws_events: {
      address: '/userSession/websocket',
      title: 'Browser event stream',
      description:
        'One text frame per event of every home the caller can see. `?ticket=<single-use ticket from POST /auth/ticket>` (or `?authToken=<user token or project key>`); optional `homeId` and `eventTypes` (comma-separated) filters.',
      send: ['Event'],
    },
  } as const;
  for (const [id, c] of Object.entries(wsChannels)) {
    const all = [...new Set([...('receive' in c ? c.receive : []), ...c.send])];
    channels[id] = {
      address: c.address,
      title: c.title,
      description: c.description,
      parameters: paramsOf(c.address),
      servers: [{ $ref: '#/servers/ws' }],
      messages: msgRefs(all),
      ...(id === 'ws_events'
        ? {
            bindings: {
              ws: {
                method: 'GET',
                query: {
                  type: 'object',
                  properties: {
                    ticket: { type: 'string', description: 'A single-use ticket from POST /auth/ticket (keeps the credential out of the URL)' },
                    authToken: { type: 'string', description: 'A user token or project key' },
                    homeId: { type: 'string', description: 'Only events of this home' },
                    eventTypes: { type: 'string', description: 'Only these event types, comma-separated' },
                  },
                },
              },
            },
          }
        : { bindings: { ws: { method: 'GET' } } }),
    };
    for (const action of ['receive', 'send'] as const) {
      const names = (c as { receive?: readonly string[]; send?: readonly string[] })[action];
      if (!names) continue;
      operations[`${action}_${id}`] = {
        action,
        title: `${c.title}: ${action === 'send' ? 'frames Hearth sends' : 'frames Hearth takes'}`,
        channel: { $ref: `#/channels/${id}` },
        messages: names.map((n) => ({ $ref: `#/channels/${id}/messages/${n}` })),
      };
    }
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Hearth device protocol',
      version: info.version,
      description:
        "Hearth's MQTT topics and WebSocket channels, as Hearth sees them (`receive`: from devices, `send`: to devices and browsers). " +
        'MQTT 3.1.1: username = device id, password = device API key; granted QoS is at most 1; a topic outside this list is refused (SUBACK 0x80) or dropped. ' +
        'The HTTP API is described by /openapi.json.',
    },
    defaultContentType: 'application/json',
    servers: {
      mqtt: { host: mqttHost, protocol: 'mqtt', protocolVersion: '3.1.1', description: 'MQTT over TCP', security: [scheme('deviceKey')] },
      mqttWs: {
        host: httpHost,
        pathname: '/mqtt',
        protocol: 'ws',
        description: 'MQTT over WebSocket (also at `/`), with or without the `mqtt` subprotocol',
        security: [scheme('deviceKey')],
      },
      ws: {
        host: httpHost,
        protocol: 'ws',
        description: 'WebSocket channels on the HTTP port',
        security: [scheme('modeCloud'), scheme('ticket'), scheme('authToken')],
      },
    },
    channels,
    operations,
    components: {
      schemas,
      messages,
      securitySchemes: {
        deviceKey: { type: 'userPassword', description: 'MQTT CONNECT: username = device id in decimal, password = the device API key (`dk.…`)' },
        modeCloud: { type: 'httpApiKey', name: 'Authorization', in: 'header', description: '`Authorization: ModeCloud <token>`' },
        ticket: {
          type: 'httpApiKey',
          name: 'ticket',
          in: 'query',
          description:
            'For browsers: `?ticket=<ticket>`, a single-use ticket valid seconds from `POST /auth/ticket`, standing for the credential that asked for it',
        },
        authToken: { type: 'httpApiKey', name: 'authToken', in: 'query', description: 'For browsers: `?authToken=<user token or project key>`' },
      },
    },
  };
}
