/**
 * Tool schemas per model API, rule by rule: OpenAI strict-mode lowering and its
 * fallback, object roots for every API, Gemini's OpenAPI subset, and the change
 * report that names every edit.
 */
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../src/index.js';
import { anthropic, gemini, openaiChat, openaiResponses, type SchemaChange } from '../src/projections/index.js';

const tool = (parameters: Record<string, unknown>, strict?: boolean): ToolDefinition => ({ name: 'mcp_demo_tool', description: 'A tool.', parameters, ...(strict === undefined ? {} : { strict }) });
const kinds = (changes: SchemaChange[]): string[] => changes.map((change) => `${change.kind} ${change.path}`);

describe('OpenAI strict mode', () => {
  const order = {
    type: 'object',
    properties: {
      customer: { $ref: '#/$defs/customer' },
      note: { type: 'string', maxLength: 200 },
      delivery: {
        type: 'object',
        properties: { street: { type: 'string' }, floor: { type: 'integer', minimum: 0 }, kind: { enum: ['home', 'office'] } },
        required: ['street'],
      },
    },
    required: ['customer'],
    $defs: { customer: { type: 'object', properties: { id: { type: 'string', format: 'uuid' }, email: { type: 'string', format: 'uri' } }, required: ['id'] } },
  };

  it('closes every object, requires every property and makes optional ones nullable, through nested objects and $defs', () => {
    const { tools, changes } = openaiResponses.tools([tool(order)], { strict: true });
    expect(tools[0]).toEqual({
      type: 'function',
      name: 'mcp_demo_tool',
      description: 'A tool.',
      strict: true,
      parameters: {
        type: 'object',
        properties: {
          customer: { $ref: '#/$defs/customer' },
          note: { type: ['string', 'null'] },
          delivery: {
            type: ['object', 'null'],
            properties: { street: { type: 'string' }, floor: { type: ['integer', 'null'], minimum: 0 }, kind: { anyOf: [{ enum: ['home', 'office'] }, { type: 'null' }] } },
            required: ['street', 'floor', 'kind'],
            additionalProperties: false,
          },
        },
        required: ['customer', 'note', 'delivery'],
        additionalProperties: false,
        $defs: {
          customer: {
            type: 'object',
            properties: { id: { type: 'string', format: 'uuid' }, email: { type: ['string', 'null'] } },
            required: ['id', 'email'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(kinds(changes)).toEqual(
      expect.arrayContaining([
        'dropped /properties/note/maxLength',
        'rewritten /properties/note',
        'added /properties/delivery/additionalProperties',
        'rewritten /properties/delivery/properties/floor',
        'dropped /$defs/customer/properties/email/format',
        'rewritten /$defs/customer/properties/email',
      ]),
    );
    expect(changes.every((change) => change.tool === 'mcp_demo_tool' && change.detail.length > 0)).toBe(true);
  });

  it.each([
    ['a free-form nested object', { type: 'object', properties: { extra: { type: 'object' } } }, '/properties/extra'],
    ['a map of strings', { type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } }, '/properties/tags/additionalProperties'],
    ['an untyped property', { type: 'object', properties: { anything: {} } }, '/properties/anything'],
    ['allOf with two members', { type: 'object', properties: { both: { allOf: [{ type: 'string' }, { minLength: 1 }] } } }, '/properties/both/allOf'],
    ['a remote $ref', { type: 'object', properties: { remote: { $ref: 'https://example.com/schema.json' } } }, '/properties/remote/$ref'],
    ['a tuple', { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } } }, '/properties/pair/items'],
    ['a $ref into a nested definition', { type: 'object', properties: { a: { $ref: '#/$defs/A/$defs/B' } }, $defs: { A: { type: 'string', $defs: { B: { type: 'string' } } } } }, '/properties/a/$ref'],
  ])('sends %s non-strict, unchanged, with a not_strict change naming where', (_label, parameters, path) => {
    const { tools, changes } = openaiChat.tools([tool(parameters)], { strict: true });
    expect(tools[0]!.function.strict).toBe(false);
    expect(tools[0]!.function.parameters).toEqual(parameters);
    expect(changes.filter((change) => change.kind === 'not_strict').map((change) => change.path)).toEqual([path]);
  });

  it('follows each definition\'s own strict flag by default and leaves server schemas as written', () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const { tools, changes } = openaiResponses.tools([tool(schema), { ...tool({ ...schema, required: ['q'], additionalProperties: false }, true), name: 'tools_search' }]);
    expect(tools.map((item) => item.strict)).toEqual([false, true]);
    expect(tools[0]!.parameters).toEqual(schema);
    expect(changes).toEqual([]);
    expect(openaiResponses.tools([tool(schema, true)], { strict: false }).tools[0]!.strict).toBe(false);
  });

  it('writes oneOf as anyOf and inlines a $ref that has keywords beside it', () => {
    const parameters = {
      type: 'object',
      properties: { pick: { oneOf: [{ type: 'string' }, { type: 'number' }] }, who: { $ref: '#/$defs/name', description: 'Who.' } },
      required: ['pick', 'who'],
      $defs: { name: { type: 'string' } },
    };
    const { tools, changes } = openaiResponses.tools([tool(parameters)], { strict: true });
    expect(tools[0]!.parameters.properties).toEqual({ pick: { anyOf: [{ type: 'string' }, { type: 'number' }] }, who: { type: 'string', description: 'Who.' } });
    expect(kinds(changes)).toEqual(expect.arrayContaining(['rewritten /properties/pick/oneOf', 'rewritten /properties/who/$ref']));
  });
});

describe('object roots', () => {
  it('merge a root anyOf into one object that requires only what every branch requires, its discriminator any branch\'s', () => {
    const parameters = {
      anyOf: [
        { type: 'object', properties: { id: { type: 'string' }, kind: { const: 'id' } }, required: ['id', 'kind'] },
        { type: 'object', properties: { name: { type: 'string' }, kind: { const: 'name' } }, required: ['name', 'kind'] },
      ],
    };
    const { tools, changes } = anthropic.tools([tool(parameters)]);
    // The discriminator takes either branch's schema, so a value of either branch is accepted.
    expect(tools[0]!.input_schema).toEqual({ type: 'object', properties: { id: { type: 'string' }, kind: { anyOf: [{ const: 'id' }, { const: 'name' }] }, name: { type: 'string' } }, required: ['kind'] });
    expect(kinds(changes)).toEqual(['added /type', 'rewritten /anyOf']);
  });

  it('replace a root that is not an object and take a root $ref from its definitions', () => {
    expect(anthropic.tools([tool({ type: 'string' })]).tools[0]!.input_schema).toEqual({ type: 'object', properties: {} });
    const referenced = { $ref: '#/$defs/args', $defs: { args: { type: 'object', properties: { a: { type: 'number' } } } } };
    expect(openaiResponses.tools([tool(referenced)]).tools[0]!.parameters).toEqual({ type: 'object', properties: { a: { type: 'number' } }, $defs: referenced.$defs });
  });
});

describe("Gemini's OpenAPI subset", () => {
  const model = 'gemini-2.0-flash';

  it('upper-cases types, writes null as nullable, const as enum, and drops what the subset lacks', () => {
    const parameters = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: {
        mode: { const: 'fast' },
        label: { type: ['string', 'null'], minLength: 1, format: 'uri' },
        count: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
        level: { enum: [1, 2, 3] },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 4, uniqueItems: true },
      },
      required: ['mode'],
    };
    const { tools, changes } = gemini.tools([tool(parameters)], { model });
    expect(tools[0]!.functionDeclarations[0]!.parameters).toEqual({
      type: 'OBJECT',
      properties: {
        mode: { type: 'STRING', enum: ['fast'] },
        label: { type: 'STRING', nullable: true, minLength: '1' },
        count: { type: 'INTEGER', minimum: 0, maximum: 10 },
        level: { description: '(one of: 1, 2, 3)' },
        tags: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: '4' },
      },
      required: ['mode'],
    });
    expect(kinds(changes)).toEqual(
      expect.arrayContaining([
        'dropped /$schema',
        'dropped /additionalProperties',
        'rewritten /properties/mode/const',
        'rewritten /properties/label/type',
        'dropped /properties/label/format',
        'rewritten /properties/count/exclusiveMinimum',
        'rewritten /properties/level/enum',
        'dropped /properties/tags/uniqueItems',
      ]),
    );
  });

  it('inlines $ref and cuts a recursive one where it would repeat', () => {
    const parameters = {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      $defs: { node: { type: 'object', description: 'A tree node.', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } },
    };
    const { tools, changes } = gemini.tools([tool(parameters)], { model });
    expect(tools[0]!.functionDeclarations[0]!.parameters).toEqual({
      type: 'OBJECT',
      properties: {
        root: {
          type: 'OBJECT',
          description: 'A tree node.',
          properties: { name: { type: 'STRING' }, children: { type: 'ARRAY', items: { type: 'OBJECT', description: 'A tree node.' } } },
        },
      },
    });
    // Changes inside an inlined definition point into the definition, where they stand in the original.
    expect(kinds(changes)).toEqual(['rewritten /properties/root/$ref', 'cut /$defs/node/properties/children/items/$ref']);
  });

  it('keeps the schema of a map-like root for JSON Schema models and says why it is left out for the OpenAPI subset', () => {
    const parameters = { type: 'object', additionalProperties: { type: 'string' } };
    expect(gemini.tools([tool(parameters)], { model: 'gemini-2.5-flash' }).tools[0]!.functionDeclarations[0]!.parametersJsonSchema).toEqual({ ...parameters, properties: {} });
    const older = gemini.tools([tool(parameters)], { model: 'gemini-2.0-flash' });
    expect(older.tools[0]!.functionDeclarations[0]!.parameters).toBeUndefined();
    expect(older.changes.map((change) => change.detail).join(' ')).toContain('free-form keys');
  });

  it('keeps a nullable union\'s own description over its one branch\'s', () => {
    const parameters = { type: 'object', properties: { x: { description: 'outer', anyOf: [{ type: 'string', description: 'inner' }, { type: 'null' }] } } };
    expect(gemini.tools([tool(parameters)], { model }).tools[0]!.functionDeclarations[0]!.parameters!.properties!.x).toEqual({ type: 'STRING', description: 'outer', nullable: true });
  });

  it('leaves the schema out of a tool without arguments, and sends JSON Schema as written to Gemini 2.5 and later', () => {
    const none = gemini.tools([tool({ type: 'object', properties: {} })], { model });
    expect(none.tools[0]!.functionDeclarations[0]).toEqual({ name: 'mcp_demo_tool', description: 'A tool.' });
    const parameters = { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false };
    const modern = gemini.tools([tool(parameters)], { model: 'gemini-2.5-pro' });
    expect(modern.tools[0]!.functionDeclarations[0]).toEqual({ name: 'mcp_demo_tool', description: 'A tool.', parametersJsonSchema: parameters });
    expect(modern.changes).toEqual([]);
    expect(gemini.tools([], { model }).tools).toEqual([]);
  });
});
