// The console's types of what the API answers (src/console is browser code: it names the ports'
// types and imports nothing else of ours, docs/architecture.md#floors-and-imports) are checked
// against the generated /openapi.json, so a field renamed or retyped on the server fails here
// instead of in a browser. Each type is read as the compiler sees it in the console's own project
// (src/console/tsconfig.json), with what it takes from the ports, and compared field by field, down
// into its objects and arrays: every field it names exists in the OpenAPI schema with the same JSON
// type (and a word of a union is among the schema's), and is required there when the console needs
// it. Every reason the console puts in words is a reason the API can answer. And the console's
// bundle holds none of the server's files.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, notConsole } from '../../../scripts/build-console.js';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

const SRC = fileURLToPath(new URL('../../../src/console/', import.meta.url));

/** a type as JSON sees it: its JSON type, and what it holds */
interface Shape {
  type: string;
  optional?: boolean;
  /** the words a union of string literals allows */
  words?: string[];
  properties?: Record<string, Shape>;
  items?: Shape;
}

let compiled: { program: ts.Program; checker: ts.TypeChecker } | undefined;

/** the console's project, compiled as `npx tsc -p src/console` compiles it (once) */
function consoleProgram(): { program: ts.Program; checker: ts.TypeChecker } {
  if (compiled) return compiled;
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => expect.fail(String(d.messageText)) };
  const config = ts.getParsedCommandLineOfConfigFile(join(SRC, 'tsconfig.json'), {}, host)!;
  const program = ts.createProgram(config.fileNames, config.options);
  compiled = { program, checker: program.getTypeChecker() };
  return compiled;
}

function shapeOf(checker: ts.TypeChecker, type: ts.Type, depth = 0): Shape {
  // before the non-null of it: that of `unknown` is `{}`, an object
  if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return { type: 'any' };
  const t = checker.getNonNullableType(type);
  if (t.flags & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) return { type: 'number' };
  if (t.flags & ts.TypeFlags.Boolean || t.flags & ts.TypeFlags.BooleanLiteral) return { type: 'boolean' };
  if (t.flags & (ts.TypeFlags.String | ts.TypeFlags.StringLiteral)) return { type: 'string', ...(t.isStringLiteral() ? { words: [t.value] } : {}) };
  if (t.isUnion() && t.types.every((u) => u.isStringLiteral())) return { type: 'string', words: t.types.map((u) => (u as ts.StringLiteralType).value) };
  if (checker.isArrayType(t)) return { type: 'array', items: shapeOf(checker, checker.getTypeArguments(t as ts.TypeReference)[0], depth + 1) };
  if (t.flags & (ts.TypeFlags.Object | ts.TypeFlags.Intersection) && depth < 6) {
    const properties: Record<string, Shape> = {};
    for (const p of checker.getPropertiesOfType(t)) {
      properties[p.name] = { ...shapeOf(checker, checker.getTypeOfSymbol(p), depth + 1), optional: (p.flags & ts.SymbolFlags.Optional) !== 0 };
    }
    return { type: 'object', properties };
  }
  return { type: checker.typeToString(t) };
}

/** the shape of a type the console exports from `file` */
function consoleType(file: string, name: string): Shape {
  const { program, checker } = consoleProgram();
  const sf = program.getSourceFile(join(SRC, file));
  if (!sf) throw new Error(`no src/console/${file} in the console's project`);
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(sf)!).find((s) => s.name === name);
  if (!exported) throw new Error(`src/console/${file} exports no ${name}`);
  return shapeOf(checker, checker.getDeclaredTypeOfSymbol(exported));
}

/** the keys of an object literal a module-level const holds */
function constKeys(file: string, name: string): string[] {
  const sf = ts.createSourceFile(file, readFileSync(SRC + file, 'utf8'), ts.ScriptTarget.Latest, true);
  for (const s of sf.statements) {
    if (!ts.isVariableStatement(s)) continue;
    for (const d of s.declarationList.declarations) {
      if (d.name.getText(sf) === name && d.initializer && ts.isObjectLiteralExpression(d.initializer)) {
        return d.initializer.properties.map((p) => p.name!.getText(sf).replace(/^['"]|['"]$/g, ''));
      }
    }
  }
  throw new Error(`no object ${name} in src/console/${file}`);
}

interface JsonSchema {
  type?: string;
  $ref?: string;
  enum?: string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

/** where the console's shape and the OpenAPI schema part, each as `path: why` */
function mismatches(shape: Shape, schema: JsonSchema, schemas: Record<string, JsonSchema>, at = ''): string[] {
  const s = schema.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  if (!s) return [`${at || '(top)'}: OpenAPI ${schema.$ref} is not a schema`];
  if (shape.type === 'any') return [];
  // a list of words may stand without its type
  const type = s.type ?? (s.enum ? typeof s.enum[0] : undefined);
  if (type !== shape.type) return [`${at || '(top)'}: console ${shape.type}, OpenAPI ${type}`];
  const out: string[] = [];
  if (shape.words && s.enum)
    out.push(...shape.words.filter((w) => !s.enum!.includes(w)).map((w) => `${at}: "${w}" is not one of OpenAPI's ${s.enum!.join(', ')}`));
  if (shape.items && s.items) out.push(...mismatches(shape.items, s.items, schemas, `${at}[]`));
  for (const [name, f] of Object.entries(shape.properties ?? {})) {
    const path = at ? `${at}.${name}` : name;
    const p = s.properties?.[name];
    if (!p) out.push(`${path}: not in the OpenAPI schema`);
    else if (!f.optional && !s.required?.includes(name)) out.push(`${path}: required by the console, optional in OpenAPI`);
    else out.push(...mismatches(f, p, schemas, path));
  }
  return out;
}

describe('the console types match /openapi.json', () => {
  let t: TestApi;
  let schemas: Record<string, JsonSchema>;
  beforeAll(async () => {
    t = await makeTestApi();
    const r = await t.req('GET', '/openapi.json');
    expect(r.status).toBe(200);
    schemas = r.body.components.schemas;
  });
  afterAll(() => t.close());

  it('finds a break (a positive control: a renamed field, a retyped one, a word the API does not have)', () => {
    const device = consoleType('pages/devices.tsx', 'Device');
    device.properties!.deviceName = { type: 'string', optional: true };
    device.properties!.homeId = { type: 'string', optional: true };
    expect(mismatches(device, schemas.Device, schemas)).toEqual(['homeId: console string, OpenAPI number', 'deviceName: not in the OpenAPI schema']);
    const rollout = consoleType('pages/firmware.tsx', 'Rollout');
    rollout.properties!.state.words!.push('cancelled');
    rollout.properties!.waves.items!.properties!.percent.type = 'string';
    expect(mismatches(rollout, schemas.Rollout, schemas)).toEqual([
      'state: "cancelled" is not one of OpenAPI\'s running, paused, completed, aborted',
      'waves[].percent: console string, OpenAPI number',
    ]);
  });

  it.each([
    ['pages/devices.tsx', 'Device', 'Device', 'isConnected'],
    ['stream.ts', 'HearthEvent', 'Event', 'originDeviceId'],
    ['pages/firmware.tsx', 'Bundle', 'Bundle', 'components'],
    ['pages/firmware.tsx', 'Rollout', 'Rollout', 'counts'],
    ['pages/firmware.tsx', 'RolloutDevice', 'RolloutDevice', 'state'],
  ])('%s %s is the API %s', (file, name, schema, field) => {
    const shape = consoleType(file, name);
    expect(Object.keys(shape.properties!)).toContain(field);
    expect(schemas[schema]).toBeDefined();
    expect(mismatches(shape, schemas[schema], schemas)).toEqual([]);
  });

  it('every reason the console puts in words (api.ts WORDS) is one the API answers', () => {
    const words = constKeys('api.ts', 'WORDS');
    expect(words.length).toBeGreaterThan(5);
    const reasons: string[] = schemas.Error.properties!.reason.enum!;
    expect(words.filter((w) => !reasons.includes(w))).toEqual([]);
  });
});

describe('the console bundle', () => {
  it("holds the console's own files and packages, and none of the server's (its port types are erased)", async () => {
    const out = mkdtempSync(join(tmpdir(), 'hearth-console-'));
    try {
      const { inputs } = await buildConsole(out);
      // positive control: the console's own files are there, the check below is not of nothing
      expect(inputs).toContain('src/console/stream.ts');
      expect(inputs.filter((i) => i.startsWith('src/') && !i.startsWith('src/console/'))).toEqual([]);
      expect(notConsole({ inputs: { 'src/ports/store/events.ts': { bytes: 1, imports: [] } }, outputs: {} }, SRC.replace(/\/$/, ''))).toEqual([
        'src/ports/store/events.ts',
      ]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
