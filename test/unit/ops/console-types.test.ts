// The console's own types of what the API answers (src/console is browser code and imports nothing
// from the server, docs/architecture.md#floors-and-imports) are checked against the generated
// /openapi.json, so a field renamed or retyped on the server fails here instead of in a browser:
// every field the console's `Device` and `HearthEvent` name exists in the OpenAPI schema with the
// same JSON type, is required there when the console needs it, and every reason the console puts
// in words is a reason the API can answer.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApi, type TestApi } from '../../helpers/api.js';

const SRC = fileURLToPath(new URL('../../../src/console/', import.meta.url));

interface Field {
  type: string;
  optional: boolean;
}

function sourceOf(file: string): ts.SourceFile {
  return ts.createSourceFile(
    file,
    readFileSync(SRC + file, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
    file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

/** the JSON type a property's TypeScript type stands for */
function jsonTypeOf(t: ts.TypeNode): string {
  if (t.kind === ts.SyntaxKind.NumberKeyword) return 'number';
  if (t.kind === ts.SyntaxKind.StringKeyword) return 'string';
  if (t.kind === ts.SyntaxKind.BooleanKeyword) return 'boolean';
  if (ts.isTypeReferenceNode(t) && t.typeName.getText() === 'Record') return 'object';
  if (ts.isArrayTypeNode(t)) return 'array';
  return t.getText();
}

/** an interface's named properties (index signatures left out) */
export function interfaceFields(file: string, name: string): Record<string, Field> {
  const sf = sourceOf(file);
  const decl = sf.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (!decl) throw new Error(`no interface ${name} in src/console/${file}`);
  const out: Record<string, Field> = {};
  for (const m of decl.members) {
    if (!ts.isPropertySignature(m) || !m.type) continue;
    out[m.name.getText(sf)] = { type: jsonTypeOf(m.type), optional: !!m.questionToken };
  }
  return out;
}

/** the keys of an object literal a module-level const holds */
function constKeys(file: string, name: string): string[] {
  const sf = sourceOf(file);
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

/** where the console's fields and the OpenAPI schema part */
function mismatches(fields: Record<string, Field>, schema: { properties: Record<string, { type?: string }>; required?: string[] }): string[] {
  const out: string[] = [];
  for (const [name, f] of Object.entries(fields)) {
    const p = schema.properties[name];
    if (!p) out.push(`${name}: not in the OpenAPI schema`);
    else if (p.type !== f.type) out.push(`${name}: console ${f.type}, OpenAPI ${p.type}`);
    else if (!f.optional && !schema.required?.includes(name)) out.push(`${name}: required by the console, optional in OpenAPI`);
  }
  return out;
}

describe('the console types match /openapi.json', () => {
  let t: TestApi;
  let schemas: Record<string, any>;
  beforeAll(async () => {
    t = await makeTestApi();
    const r = await t.req('GET', '/openapi.json');
    expect(r.status).toBe(200);
    schemas = r.body.components.schemas;
  });
  afterAll(() => t.close());

  it('finds a break (a positive control: a renamed and a retyped field)', () => {
    const fields: Record<string, Field> = { ...interfaceFields('pages/devices.tsx', 'Device'), deviceName: { type: 'string', optional: true } };
    fields.homeId = { type: 'string', optional: true };
    expect(mismatches(fields, schemas.Device)).toEqual(['homeId: console string, OpenAPI number', 'deviceName: not in the OpenAPI schema']);
  });

  it('Device (pages/devices.tsx) is the API Device', () => {
    const fields = interfaceFields('pages/devices.tsx', 'Device');
    expect(Object.keys(fields)).toContain('isConnected');
    expect(mismatches(fields, schemas.Device)).toEqual([]);
  });

  it('HearthEvent (stream.ts) is the API Event', () => {
    const fields = interfaceFields('stream.ts', 'HearthEvent');
    expect(Object.keys(fields)).toContain('eventType');
    expect(mismatches(fields, schemas.Event)).toEqual([]);
  });

  it('every reason the console puts in words (api.ts WORDS) is one the API answers', () => {
    const words = constKeys('api.ts', 'WORDS');
    expect(words.length).toBeGreaterThan(5);
    const reasons: string[] = schemas.Error.properties.reason.enum;
    expect(words.filter((w) => !reasons.includes(w))).toEqual([]);
  });
});
