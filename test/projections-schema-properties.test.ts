/**
 * Property-based checks of the schema projections (src/projections), through their
 * public `tools()` entry points, over the schema grammar and value generators of
 * ./schema-grammar.ts (values are checked with ajv, so the generators are tested too).
 *
 * Checked: OpenAI strict lowering accepts every value the original accepts (with the
 * `null`s a strict model sends for left-out properties), those `null`s are read back to
 * the original value, and every lowered schema obeys strict mode's shape rules; a schema
 * strict mode cannot express is sent unchanged with one `not_strict` change naming where;
 * a cycle of references and a `$ref` to the root with keywords beside them are lowered
 * strict; Gemini's OpenAPI lowering accepts every value the original accepts and stays
 * inside the subset, recursive references included; every change any target reports
 * names a place in the original schema; no projection mutates or shares the definition;
 * every target's root is an object that still accepts what a root union accepted.
 *
 * Counterexamples that once broke a property run as its first `examples` (regression
 * cases, defined below with what each once broke).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../src/core/tool.js';
import { withoutStrictNulls } from '../src/projections/arguments.js';
import { anthropic, gemini, openaiChat, openaiResponses, type GeminiSchema, type SchemaChange } from '../src/projections/index.js';
import {
  accepts, atPointer, type Case, cases, deepFreeze, everyNode, geminiRefusal, geminiShapeProblems, isNode, MAIN, objectOf, objectsIn, only, RECURSIVE_SCHEMAS, refusal,
  rootSchema, type Schema, schemaNode, strictShapeProblems, tool, valueFor, WILD,
} from './schema-grammar.js';

/** Runs of each property: enough to meet every grammar rule many times, few enough for a few seconds. */
const RUNS = 200;
// A fixed seed by default, so a run in CI is repeatable; FC_SEED=<n> replays another, FC_SEED=random explores.
fc.configureGlobal({ seed: process.env.FC_SEED === 'random' ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env.FC_SEED ?? 20261202) });

function geminiParameters(schema: Schema): GeminiSchema | undefined {
  const declaration = only(only(gemini.tools([tool(schema)], { model: 'gemini-2.0-flash' }).tools).functionDeclarations);
  expect(declaration.parametersJsonSchema).toBeUndefined();
  return declaration.parameters;
}

/** Every target's `tools()`, in every mode: OpenAI strict by definition, on and off; Gemini with each schema kind. */
function projectAll(definitions: readonly ToolDefinition[]): Array<{ tools: unknown[]; changes: SchemaChange[] }> {
  const modes = [{}, { strict: true }, { strict: false }];
  return [
    ...modes.map((options) => openaiResponses.tools(definitions, options)),
    ...modes.map((options) => openaiChat.tools(definitions, options)),
    anthropic.tools(definitions),
    ...(['gemini-2.0-flash', 'gemini-2.5-flash'] as const).map((model) => gemini.tools(definitions, { model })),
  ];
}

// --- The checks each property makes of one case ---

/**
 * Property 1 (what is asserted). For a schema S of the grammar and a value v that S
 * accepts: every schema of the grammar can be expressed in strict mode, so the tool is
 * strict; and the lowered parameters accept v', which is v with `null` for every
 * optional property v leaves out, at every object level (what a model under strict mode
 * sends, since strict mode makes every property required).
 */
function checkStrictAcceptsSent({ schema, sample }: Case): void {
  const fn = only(openaiResponses.tools([tool(schema)], { strict: true }).tools);
  expect(fn.strict, 'the grammar stays within strict mode').toBe(true);
  expect(accepts(fn.parameters, sample.sent), refusal(fn.parameters, sample.sent)).toBe(true);
}

/**
 * Property 1, the way back (what is asserted). `withoutStrictNulls(() => S, v')`
 * deep-equals v with one exception: a left-out optional property whose original schema
 * itself accepts `null` stays `null` (nothing tells the host that `null` from a meant
 * one; `Sample.restored` is exactly that expectation, so with non-nullable optional
 * properties it is v). The result is also accepted by S: the server gets a valid call.
 */
function checkRoundTrip({ schema, sample }: Case): void {
  const restored = withoutStrictNulls(() => schema, sample.sent);
  expect(restored).toEqual(sample.restored);
  expect(accepts(schema, restored), refusal(schema, restored)).toBe(true);
}

/**
 * Whether a change's path names a place in `original`: it resolves there, or names a
 * keyword missing from a schema that is there (`.../type` given to an untyped schema,
 * `.../items` of an array without them); an `added` change names a keyword that was
 * absent, so only the second counts for it.
 */
function namesPlace(original: Schema, { kind, path }: SchemaChange): boolean {
  const cut = path.lastIndexOf('/');
  if (atPointer(original, path) !== undefined) return kind !== 'added';
  let parentIsSchema = false;
  everyNode(original, (_node, at) => {
    if (cut >= 0 && at === path.slice(0, cut)) parentIsSchema = true;
  });
  return parentIsSchema;
}

/**
 * Property 3 for one schema strict mode cannot express (what is asserted): strict is
 * false; the parameters deep-equal the object-rooted original (Anthropic's
 * `input_schema`, the same normalisation, which for an object root is the original);
 * exactly one change is `not_strict` (and, for an object root, it is the only change);
 * its path names a place in the original; and when `path` is given, it is that path.
 */
function checkFallback(schema: Schema, path?: string): void {
  const projected = openaiResponses.tools([tool(schema)], { strict: true });
  const fn = only(projected.tools);
  expect(fn.strict).toBe(false);
  const normalised = only(anthropic.tools([tool(schema)]).tools).input_schema;
  expect(fn.parameters).toEqual(normalised);
  const change = only(projected.changes.filter(({ kind }) => kind === 'not_strict'));
  if (schema.type === 'object' && isNode(schema.properties)) expect(projected.changes).toEqual([change]);
  if (path !== undefined) expect(change.path).toBe(path);
  expect(namesPlace(schema, change), change.path).toBe(true);
}

interface RootValueCase {
  schema: Schema;
  value: unknown;
}

/** Property 6, values, for one case (what is asserted): ajv accepts the value against Anthropic's `input_schema` (the OpenAI non-strict parameters are the same object root). */
function checkRootAccepts({ schema, value }: RootValueCase): void {
  const inputSchema = only(anthropic.tools([tool(schema)]).tools).input_schema;
  expect(only(openaiResponses.tools([tool(schema)]).tools).parameters).toEqual(inputSchema);
  expect(accepts(inputSchema, value), refusal(inputSchema, value)).toBe(true);
}

// --- Regression counterexamples (each the first example of its property) ---

/** A case of a schema, a value, what a strict model sends for it and what reading that back must give. */
const strictCase = (schema: Schema, value: unknown, sent: unknown, restored: unknown): Case => ({ schema, sample: { value, sent, restored } });

/** Once lowered to a strict `enum` that refused the `null` sent for it when left out (its type took `null`, its `enum` did not). */
const NULLABLE_ENUM = strictCase({ type: 'object', properties: { mode: { type: ['string', 'null'], enum: ['fast', 'slow'] } } }, {}, { mode: null }, {});
/** Once lowered to a strict `const` that refused the `null` sent for it when left out. */
const NULLABLE_CONST = strictCase({ type: 'object', properties: { unit: { type: ['string', 'null'], const: 'px' } } }, {}, { unit: null }, {});
/** Once got a `null` branch added to its `anyOf` while the shared `type` beside it still refused `null`. */
const TYPED_UNION = strictCase({ type: 'object', properties: { contact: { type: 'string', anyOf: [{ type: 'string', format: 'email' }, { type: 'string', format: 'uuid' }] } } }, {}, { contact: null }, {});
/** Once kept the strict `null` of a left-out property of an object inside an `anyOf` branch (reading back did not enter branches); also a test of its own. */
const UNION_BRANCH_NULL = strictCase(
  { type: 'object', properties: { target: { anyOf: [{ type: 'object', properties: { path: { type: 'string' }, line: { type: 'integer' } }, required: ['path'] }, { type: 'string' }] } }, required: ['target'] },
  { target: { path: 'a.ts' } }, { target: { path: 'a.ts', line: null } }, { target: { path: 'a.ts' } },
);
/** Once merged into an object root holding only the first branch's `kind`, which refused the second branch's values. */
const DISCRIMINATED: RootValueCase = {
  schema: {
    anyOf: [
      { type: 'object', properties: { kind: { const: 'circle' }, radius: { type: 'number' } }, required: ['kind', 'radius'] },
      { type: 'object', properties: { kind: { const: 'square' }, side: { type: 'number' } }, required: ['kind', 'side'] },
    ],
  },
  value: { kind: 'square', side: 2 },
};
/** Once inlined forever by strict lowering (a stack overflow); `dropped` is where the keywords beside a `$ref` leading back into the cycle are reported. */
const REFERENCE_LOOPS: Array<{ schema: Schema; dropped: string[] }> = [
  { schema: { type: 'object', properties: {}, $defs: { Loop: { $ref: '#/$defs/Loop', description: 'Loops.' } } }, dropped: ['/$defs/Loop/description'] },
  {
    schema: { type: 'object', properties: { a: { $ref: '#/$defs/A', description: 'x' } }, $defs: { A: { $ref: '#/$defs/B', description: 'y' }, B: { $ref: '#/$defs/A', description: 'z' } } },
    dropped: ['/$defs/A/description', '/$defs/B/description', '/properties/a/description'],
  },
];
/** Once sent with `type: "object"` written into the non-strict parameters by the failed strict attempt (so they refused non-objects the original accepts). */
const UNTYPED_BEFORE_REFUSAL: Schema = { type: 'object', properties: { a: { properties: { b: { type: 'string' } } }, c: {} } };
/** Once reported at `.../anyOf/1`, which the original does not have (its `oneOf` was rewritten). */
const ONE_OF_BRANCH: Schema = { type: 'object', properties: { value: { oneOf: [{ type: 'string' }, {}] } } };
/** Once reported at a path that skipped the one-member `allOf` holding the offending schema. */
const ONE_MEMBER_ALL_OF: Schema = { type: 'object', properties: { x: { allOf: [{ type: 'object', properties: { m: {} } }] } } };
/** Once reported at a path running through the inlined definition under `/properties/box`, which the original does not have. */
const REF_WITH_SIBLINGS: Schema = { type: 'object', properties: { box: { $ref: '#/$defs/Box', description: 'A box.' } }, $defs: { Box: { type: 'object', properties: { meta: { type: 'object' } } } } };

// --- Counterexamples of strict nulls inside unions and of keywords beside a `$ref` (both once broke their property) ---

/** The value's `at` is the second branch's object, but the first branch declares as many of its keys (`at: number`). */
const TIED_BRANCHES = strictCase(
  { type: 'object', properties: { target: { anyOf: [{ type: 'object', properties: { at: { type: 'number' } } }, { type: 'object', properties: { at: { type: 'object', properties: { line: { type: 'integer' } } } } }] } }, required: ['target'] },
  { target: { at: {} } }, { target: { at: { line: null } } }, { target: { at: {} } },
);
/** An array of objects as one branch of a union. */
const ARRAY_BRANCH = strictCase(
  { type: 'object', properties: { tags: { anyOf: [{ type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } }, { type: 'string' }] } }, required: ['tags'] },
  { tags: [{}] }, { tags: [{ n: null }] }, { tags: [{}] },
);
/** An object in a union nested in a union. */
const NESTED_UNION = strictCase(
  { type: 'object', properties: { x: { anyOf: [{ anyOf: [{ type: 'object', properties: { n: { type: 'string' } } }, { type: 'integer' }] }, { type: 'string' }] } }, required: ['x'] },
  { x: {} }, { x: { n: null } }, { x: {} },
);

/** A one-member `allOf` of a bare `$ref` with a description beside the `allOf` (a wild-grammar schema). */
const ALL_OF_REF: Schema = { type: 'object', properties: { a: { allOf: [{ $ref: '#/$defs/B' }], description: 'x' } }, required: ['a'], $defs: { B: { type: 'string' } } };
/** A `$ref` with a description beside it, to a definition that is itself a bare `$ref`. */
const REF_TO_REF: Schema = { type: 'object', properties: { a: { $ref: '#/$defs/A', description: 'x' } }, required: ['a'], $defs: { A: { $ref: '#/$defs/B' }, B: { type: 'string' } } };

// --- The properties ---

describe('the schema grammar and its values', () => {
  it('every generated value, and what reading a strict model\'s nulls back must give, is accepted by the original schema', () => {
    fc.assert(
      fc.property(cases(MAIN), ({ schema, sample }) => {
        expect(accepts(schema, sample.value), refusal(schema, sample.value)).toBe(true);
        expect(accepts(schema, sample.restored), refusal(schema, sample.restored)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('the test\'s Gemini validator refuses what the subset refuses', () => {
    const schema = { type: 'OBJECT', properties: { a: { type: 'STRING', enum: ['x'], nullable: true }, n: { type: 'INTEGER', minimum: 1 }, l: { type: 'ARRAY', items: { type: 'STRING', minLength: '2' }, maxItems: '1' } }, required: ['a'] };
    expect(geminiRefusal(schema, { a: 'x', n: 1, l: ['ab'] })).toBeUndefined();
    expect(geminiRefusal(schema, { a: null })).toBeUndefined();
    for (const value of [{}, { a: 'y' }, { a: 'x', n: 0 }, { a: 'x', n: 1.5 }, { a: 'x', l: ['a'] }, { a: 'x', l: ['ab', 'cd'] }, [], 'x', null]) expect(geminiRefusal(schema, value)).toBeDefined();
    expect(geminiRefusal({ anyOf: [{ type: 'STRING' }, { type: 'INTEGER' }] }, true)).toBeDefined();
    expect(geminiRefusal({}, true)).toBeUndefined();
  });
});

describe('OpenAI strict mode', () => {
  it('a strictly lowered schema accepts every value the original accepts, with nulls for left-out properties', () => {
    const property = fc.property(cases(MAIN), (testCase) => {
      fc.pre(accepts(testCase.schema, testCase.sample.value));
      checkStrictAcceptsSent(testCase);
    });
    fc.assert(property, { numRuns: RUNS, examples: [[NULLABLE_ENUM], [NULLABLE_CONST], [TYPED_UNION]] });
  });

  // Once broken: strict nulls inside unions were read back against one branch only, chosen by key count.
  it('a strict model\'s nulls for left-out properties are read back as the value the original schema accepts', () => {
    const property = fc.property(cases(MAIN), (testCase) => {
      fc.pre(accepts(testCase.schema, testCase.sample.value));
      checkRoundTrip(testCase);
    });
    fc.assert(property, { numRuns: RUNS, examples: [[UNION_BRANCH_NULL], [TIED_BRANCHES], [ARRAY_BRANCH], [NESTED_UNION]] });
  });
  it('a strict model\'s null for a left-out property of an object in an anyOf branch is read back as "not given"', () => checkRoundTrip(UNION_BRANCH_NULL));
  it('a null a union branch\'s own required property takes is kept, however another branch scores', () =>
    // Once dropped: the first branch tied with the one the value fits, and the null looked like another branch's.
    checkRoundTrip(
      strictCase(
        {
          type: 'object',
          properties: { tags: { anyOf: [{ $ref: '#/$defs/Point' }, { type: 'object', properties: { tags: { type: ['number', 'null'] } }, required: ['tags'] }] } },
          required: ['tags'],
          $defs: { Point: { type: 'object', properties: { name: { enum: [2, '', true] } }, required: ['name'], additionalProperties: false } },
        },
        { tags: { tags: null } },
        { tags: { tags: null } },
        { tags: { tags: null } },
      ),
    ));
  it('a strict model\'s nulls for an object in a nested union are read back against the nested branch the object fits', () =>
    // Once read back against the outer branch declaring one of the keys (whose required `name` the null could not be).
    checkRoundTrip(
      strictCase(
        {
          type: 'object',
          properties: { tags: { anyOf: [{ $ref: '#/$defs/Item' }, { anyOf: [{ enum: [false] }, { $ref: '#/$defs/Point' }] }] } },
          required: ['tags'],
          $defs: {
            Item: { type: 'object', properties: { name: { type: 'array', items: { type: 'number' } } }, required: ['name'] },
            Point: { type: 'object', properties: { tags: { type: 'object', properties: { n: { type: 'string' } }, additionalProperties: false }, name: { type: 'string' } }, additionalProperties: false },
          },
        },
        { tags: {} },
        { tags: { tags: null, name: null } },
        { tags: {} },
      ),
    ));

  /*
   * Property 2 (what is asserted). For every schema of the grammar, and of the wild
   * grammar where strict mode takes it: the lowered root is an object without a root
   * union; every object schema anywhere ($defs, anyOf branches, items, properties) has
   * `additionalProperties: false` and `required` listing exactly its properties; only
   * strict mode's keywords appear; a `$ref` stands alone and names a definition; no
   * definitions below the root.
   * (Once broken: a description was written beside a bare `$ref`.)
   */
  it('every strictly lowered schema closes every object, requires every property and uses only strict mode\'s keywords', () => {
    let strict = 0;
    fc.assert(
      fc.property(fc.oneof(rootSchema(MAIN), rootSchema(WILD)), (schema) => {
        const fn = only(openaiResponses.tools([tool(schema)], { strict: true }).tools);
        if (!fn.strict) return;
        strict++;
        expect(strictShapeProblems(fn.parameters)).toEqual([]);
      }),
      { numRuns: RUNS, examples: [[ALL_OF_REF], [REF_TO_REF], ...REFERENCE_LOOPS.map(({ schema }) => [schema] as [Schema])] },
    );
    expect(strict).toBeGreaterThan(RUNS / 4);
  });

  /*
   * Property 3 as a property. For a schema of the wild grammar: a strict tool has no
   * `not_strict` change, a non-strict one exactly one (then `checkFallback` asserts the
   * rest).
   */
  it('when strict mode refuses a schema exactly one change says not_strict, and when it takes it none does', () => {
    let fallbacks = 0;
    fc.assert(
      fc.property(rootSchema(WILD), (schema) => {
        const projected = openaiResponses.tools([tool(schema)], { strict: true });
        const notStrict = projected.changes.filter((change) => change.kind === 'not_strict');
        if (only(projected.tools).strict) expect(notStrict).toEqual([]);
        else {
          fallbacks++;
          expect(notStrict).toHaveLength(1);
        }
      }),
      { numRuns: RUNS },
    );
    expect(fallbacks).toBeGreaterThan(RUNS / 4);
  });

  it('a schema strict mode cannot express is sent as the object-rooted original, with one not_strict change naming a place in it', () => {
    const property = fc.property(rootSchema(WILD), (schema) => {
      fc.pre(!only(openaiResponses.tools([tool(schema)], { strict: true }).tools).strict);
      checkFallback(schema);
    });
    fc.assert(property, { numRuns: RUNS, examples: [[UNTYPED_BEFORE_REFUSAL], [ONE_OF_BRANCH], [ONE_MEMBER_ALL_OF], [REF_WITH_SIBLINGS]] });
  });

  const nested = (levels: number): Schema => (levels === 0 ? { type: 'string' } : { type: 'object', properties: { n: nested(levels - 1) } });
  const many = (): Schema => ({ type: 'integer', enum: Array.from({ length: 600 }, (_, i) => i) });
  const manyEnums: Schema = { type: 'object', properties: { a: many(), b: many() } };

  const REFUSED: Array<[string, Schema, string]> = [
    ['a nested free-form object', { type: 'object', properties: { meta: { type: 'object' } } }, '/properties/meta'],
    ['additionalProperties holding a schema', { type: 'object', properties: { labels: { type: 'object', properties: { env: { type: 'string' } }, additionalProperties: { type: 'string' } } } }, '/properties/labels/additionalProperties'],
    ['additionalProperties holding a schema at the root', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }, '/additionalProperties'],
    ['additionalProperties: true', { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: true } } }, '/properties/a/additionalProperties'],
    ['an untyped {} property', { type: 'object', properties: { anything: {} } }, '/properties/anything'],
    ['an untyped {} array item', { type: 'object', properties: { list: { type: 'array', items: {} } } }, '/properties/list/items'],
    ['an untyped anyOf branch', { type: 'object', properties: { value: { anyOf: [{ type: 'string' }, {}] } } }, '/properties/value/anyOf/1'],
    ['an untyped oneOf branch', ONE_OF_BRANCH, '/properties/value/oneOf/1'],
    ['allOf with two members', { type: 'object', properties: { name: { allOf: [{ type: 'string' }, { maxLength: 9 }] } } }, '/properties/name/allOf'],
    ['a free-form object inside a one-member allOf', ONE_MEMBER_ALL_OF, '/properties/x/allOf/0/properties/m'],
    ['a remote $ref', { type: 'object', properties: { address: { $ref: 'https://example.com/address.json' } } }, '/properties/address/$ref'],
    ['a $ref that names no definition', { type: 'object', properties: { x: { $ref: '#/$defs/Missing' } } }, '/properties/x/$ref'],
    ['a free-form object in $defs', { type: 'object', properties: { x: { $ref: '#/$defs/Free' } }, $defs: { Free: { type: 'object' } } }, '/$defs/Free'],
    ['a free-form object in a definition referenced with keywords beside the $ref', REF_WITH_SIBLINGS, '/$defs/Box/properties/meta'],
    ['an untyped "properties" schema before the offending one', UNTYPED_BEFORE_REFUSAL, '/properties/c'],
    ['a tuple (an items list)', { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }] } } }, '/properties/pair/items'],
    ['prefixItems without items', { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } }, '/properties/pair/items'],
    ['a boolean schema', { type: 'object', properties: { x: true } }, '/properties/x'],
    ['patternProperties', { type: 'object', properties: { headers: { type: 'object', patternProperties: { '^x-': { type: 'string' } } } } }, '/properties/headers/patternProperties'],
    ['a required name without a schema', { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] }, '/required'],
    ['a type that is not a JSON Schema type', { type: 'object', properties: { when: { type: 'date' } } }, '/properties/when/type'],
    ['a property name that needs escaping', { type: 'object', properties: { 'a/b~c': {} } }, '/properties/a~1b~0c'],
    ['objects nested deeper than ten levels', nested(11), '/properties/n'.repeat(10)],
    ['more than a thousand enum values', manyEnums, '/properties/b'],
  ];

  /*
   * Property 3, table-driven (what is asserted, by `checkFallback`): strict is false, the
   * parameters deep-equal the original (already an object root), the only change is one
   * `not_strict` change, and its path is the given JSON Pointer, which names a place in
   * the original.
   */
  it.each(REFUSED)('a schema with %s is sent non-strict and unchanged, with one not_strict change at the offending location', (_what, schema, path) => {
    checkFallback(schema, path);
  });

  /*
   * (What is asserted.) For a `$ref` to the root with a description beside it, optional
   * and required: the tool is strict, the property is the bare `$ref` (made nullable when
   * optional), and the description is reported `dropped` at its place; the strict `null`
   * of the optional one is read back as "not given".
   */
  it('a $ref to the root with keywords beside it is kept as a bare $ref, its keywords dropped, and the tool is strict', () => {
    for (const required of [false, true]) {
      const schema: Schema = { type: 'object', properties: { self: { $ref: '#', description: 'Again.' } }, ...(required ? { required: ['self'] } : {}) };
      const projected = openaiResponses.tools([tool(schema)], { strict: true });
      const fn = only(projected.tools);
      expect(fn.strict).toBe(true);
      expect(fn.parameters.properties).toEqual({ self: required ? { $ref: '#' } : { anyOf: [{ $ref: '#' }, { type: 'null' }] } });
      expect(projected.changes.filter(({ kind }) => kind === 'dropped').map(({ path }) => path)).toEqual(['/properties/self/description']);
      expect(strictShapeProblems(fn.parameters)).toEqual([]);
      if (!required) expect(withoutStrictNulls(() => schema, { self: { self: null } })).toEqual({ self: {} });
    }
  });

  /*
   * (What is asserted.) For a cycle of references with a keyword beside each `$ref`,
   * strict by the option and by the definition's flag: the projection returns, the tool
   * is strict, every `$ref` of the original is still a `$ref` of the lowered schema, and
   * the keywords beside a `$ref` that leads back into the cycle are exactly the `dropped`
   * changes; Chat Completions does not throw either.
   */
  it.each(REFERENCE_LOOPS.map(({ schema, dropped }) => [schema, dropped] as const))('a cycle of references with keywords beside each reference is lowered strict, its references kept and the keywords beside them dropped: %j', (schema, dropped) => {
    const refs = (root: unknown): string[] => [...new Set(JSON.stringify(root).match(/"\$ref":"[^"]*"/g) ?? [])].sort();
    for (const definitions of [[tool(schema)], [{ ...tool(schema), strict: true }]]) {
      const projected = openaiResponses.tools(definitions, { strict: true });
      const fn = only(projected.tools);
      expect(fn.strict).toBe(true);
      expect(refs(fn.parameters)).toEqual(refs(schema));
      expect([...new Set(projected.changes.filter(({ kind }) => kind === 'dropped').map(({ path }) => path))].sort()).toEqual(dropped);
      expect(() => openaiChat.tools(definitions)).not.toThrow();
    }
  });
});

describe('Gemini OpenAPI schemas', () => {
  /*
   * Property 4 (what is asserted). For a schema S of the grammar and a value v that S
   * accepts: a tool with properties gets OpenAPI `parameters` (no `parametersJsonSchema`
   * for gemini-2.0-flash) and the test's subset validator accepts v against them; a tool
   * without properties gets no `parameters`.
   */
  it('the Gemini OpenAPI schema accepts every value the original accepts', () => {
    fc.assert(
      fc.property(cases(MAIN), ({ schema, sample }) => {
        fc.pre(accepts(schema, sample.value));
        const parameters = geminiParameters(schema);
        if (!isNode(schema.properties) || Object.keys(schema.properties).length === 0) {
          expect(parameters).toBeUndefined();
          return;
        }
        expect(parameters).toBeDefined();
        expect(geminiRefusal(parameters, sample.value)).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
  });

  /*
   * (What is asserted.) For every schema of the grammar and of the wild grammar, the
   * lowered schema stays inside the subset: only fields of Gemini's `Schema` message (so
   * no `$ref`, `$defs`, `additionalProperties`, `const`, `oneOf`, `allOf`), upper-case
   * types, string-only `enum`s, counts as int64 strings, `required` naming properties.
   */
  it('a Gemini OpenAPI schema holds no $ref, $defs, additionalProperties, const, oneOf, allOf or lower-case type, and only string enums', () => {
    fc.assert(
      fc.property(fc.oneof(rootSchema(MAIN), rootSchema(WILD)), (schema) => {
        const parameters = geminiParameters(schema);
        if (parameters !== undefined) expect(geminiShapeProblems(parameters)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  /*
   * (What is asserted.) For a recursive schema: the projection returns (terminates),
   * reports at least one `cut` change, each at a `$ref` of the original, stays inside the
   * subset, and accepts every value of the original (generated trees and chains, checked
   * with ajv).
   */
  it.each(RECURSIVE_SCHEMAS)('the Gemini schema of %s terminates, is cut where it would repeat and accepts the original\'s values', (_what, schema, values) => {
    const projected = gemini.tools([tool(schema)], { model: 'gemini-2.0-flash' });
    const cuts = projected.changes.filter((change) => change.kind === 'cut');
    expect(cuts.length).toBeGreaterThan(0);
    for (const cut of cuts) expect(typeof atPointer(schema, cut.path), cut.path).toBe('string');
    const parameters = only(only(projected.tools).functionDeclarations).parameters;
    expect(geminiShapeProblems(parameters)).toEqual([]);
    fc.assert(
      fc.property(values, (value) => {
        expect(accepts(schema, value)).toBe(true);
        expect(geminiRefusal(parameters, value)).toBeUndefined();
      }),
      { numRuns: 50 },
    );
  });
});

describe('every projection', () => {
  const anyRoot = fc.oneof(
    rootSchema(MAIN),
    rootSchema(WILD),
    schemaNode(2, WILD).map((root) => ({ ...root, $defs: { Item: { type: 'string' }, Point: { type: 'object', properties: { x: { type: 'number' } } } } })),
  );
  const loops = REFERENCE_LOOPS.map(({ schema }) => [schema] as [Schema]);

  /*
   * Property 5 (what is asserted). For a deep-frozen schema (any root, wild keywords and
   * reference cycles included) in a deep-frozen definition list (one definition strict by
   * its own flag): no target throws (a write to a frozen object would throw, ESM being
   * strict mode), and the definitions serialise the same afterwards.
   */
  it('no projection changes the definition it is given, and none throws', () => {
    fc.assert(
      fc.property(anyRoot, (schema) => {
        const definitions = deepFreeze([tool(schema), { ...tool(schema, 'probe_strict'), strict: true }]);
        const before = JSON.stringify(definitions);
        projectAll(definitions);
        expect(JSON.stringify(definitions)).toBe(before);
      }),
      { numRuns: RUNS, examples: loops },
    );
  });

  it('no projected tool list shares an object with the definition, so changing one cannot change the other', () => {
    fc.assert(
      fc.property(anyRoot, (schema) => {
        const definitions = [tool(schema), { ...tool(schema, 'probe_strict'), strict: true }];
        const inputs = objectsIn(definitions);
        for (const output of projectAll(definitions)) for (const object of objectsIn(output)) expect(inputs.has(object)).toBe(false);
      }),
      { numRuns: RUNS },
    );
  });

  interface RootCase {
    schema: Schema;
    /** Schemas a value may be drawn from that the object root must accept (a union's branches, a root `$ref`'s definition). */
    accepted: Schema[];
  }
  const branch = objectOf(schemaNode(1, { refs: false, wild: false }), 1);
  const rootCases = fc.oneof(
    fc.tuple(branch, branch).map(([a, b]): RootCase => ({ schema: { anyOf: [a, b] }, accepted: [a, b] })),
    fc.tuple(branch, branch).map(([a, b]): RootCase => ({ schema: { type: 'object', oneOf: [a, b], description: 'One of two.' }, accepted: [a, b] })),
    fc.tuple(branch, branch).map(([a, b]): RootCase => ({ schema: { anyOf: [{ $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }], $defs: { A: a, B: b } }, accepted: [a, b] })),
    fc.tuple(branch, branch).map(([a, b]): RootCase => ({ schema: { allOf: [a, b] }, accepted: [] })),
    branch.map((a): RootCase => ({ schema: { $ref: '#/$defs/Args', $defs: { Args: a } }, accepted: [a] })),
    schemaNode(1, { refs: false, wild: false }).map((node): RootCase => ({ schema: node, accepted: [] })),
    fc.constantFrom<Schema>({}, { type: 'object' }, { type: 'array', items: { type: 'string' } }, { type: 'string', enum: ['a'] }, { not: {}, if: {}, then: {}, else: {} }).map((schema): RootCase => ({ schema, accepted: [] })),
  );

  /** A root every API takes as it is: an object schema with properties, no root union, `allOf` or `$ref`. */
  const objectRooted = (schema: Schema): boolean => schema.type === 'object' && isNode(schema.properties) && !['anyOf', 'oneOf', 'allOf', '$ref'].some((keyword) => keyword in schema);

  /*
   * (What is asserted.) For any root (the regression cases of misplaced paths and the
   * reference cycles first): every change every target reports, in every mode, names a
   * place in the original schema (`namesPlace`): inside an inlined definition a path runs
   * through `/$defs/<name>`, in a `oneOf` through `.../oneOf/<i>`, in a one-member `allOf`
   * through `.../allOf/0`. Below a root that is not an object schema (a root union,
   * `allOf` or `$ref`, which every API needs merged into one object), a path may instead
   * name a place in that object root (Anthropic's `input_schema`).
   */
  it('every change any target reports names a place in the original schema, or in the object root a non-object root becomes', () => {
    fc.assert(
      fc.property(fc.oneof(anyRoot, rootCases.map(({ schema }) => schema)), (schema) => {
        const places = objectRooted(schema) ? [schema] : [schema, only(anthropic.tools([tool(schema)]).tools).input_schema];
        const definitions = [tool(schema), { ...tool(schema, 'probe_strict'), strict: true }];
        for (const { changes } of projectAll(definitions)) {
          expect(changes.filter((change) => !places.some((place) => namesPlace(place, change))).map(({ kind, path }) => `${kind} ${path}`)).toEqual([]);
        }
      }),
      { numRuns: RUNS, examples: [[ONE_OF_BRANCH], [ONE_MEMBER_ALL_OF], [REF_WITH_SIBLINGS], [UNTYPED_BEFORE_REFUSAL], ...loops] },
    );
  });

  /*
   * Property 6, shape (what is asserted). For any root (union of objects, `oneOf`,
   * `allOf`, `$ref` to `$defs`, non-object types, empty): OpenAI parameters (strict on
   * and off, both APIs) and Anthropic's `input_schema` have `type: 'object'`,
   * `properties` as an object, and no root `anyOf`/`oneOf`/`allOf`; Gemini's OpenAPI
   * `parameters`, when present, are `OBJECT`.
   */
  it('every target\'s root is an object schema without a root union', () => {
    fc.assert(
      fc.property(rootCases, ({ schema }) => {
        const definitions = [tool(schema)];
        const roots: Schema[] = [
          only(openaiResponses.tools(definitions).tools).parameters,
          only(openaiResponses.tools(definitions, { strict: true }).tools).parameters,
          only(openaiChat.tools(definitions, { strict: true }).tools).function.parameters,
          only(anthropic.tools(definitions).tools).input_schema,
        ];
        for (const root of roots) {
          expect(root.type).toBe('object');
          expect(isNode(root.properties)).toBe(true);
          for (const keyword of ['anyOf', 'oneOf', 'allOf']) expect(root).not.toHaveProperty(keyword);
        }
        const parameters = geminiParameters(schema);
        if (parameters !== undefined) expect(parameters.type).toBe('OBJECT');
      }),
      { numRuns: RUNS },
    );
  });

  /*
   * Property 6, values. For a root union of two object schemas (`anyOf` or `oneOf`,
   * inline or by `$ref`, the branches agreeing on a shared property or not) or a root
   * `$ref`: a value valid against any one branch (or the definition) is accepted by the
   * object root (`checkRootAccepts`).
   */
  it('a root union of objects becomes an object root that accepts a value of any one branch', () => {
    const values = rootCases
      .filter(({ accepted }) => accepted.length > 0)
      .chain(({ schema, accepted }) => fc.constantFrom(...accepted).chain((one) => valueFor(one, schema).map((sample): RootValueCase => ({ schema, value: sample.value }))));
    fc.assert(fc.property(values, checkRootAccepts), { numRuns: RUNS, examples: [[DISCRIMINATED]] });
  });
});
