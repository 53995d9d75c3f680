/**
 * Unit tests of the SEP-2243 `x-mcp-header` declaration rules: a tool whose input
 * schema breaks them is left out of a Streamable HTTP catalog.
 */
import { describe, expect, it } from 'vitest';
import { xMcpHeaderProblem } from '../src/mcp/catalog/x-mcp-header.js';

function schema(properties: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'object', properties, ...extra };
}

describe('xMcpHeaderProblem accepts', () => {
  it('a schema without declarations, and non-object schemas', () => {
    expect(xMcpHeaderProblem(schema({ a: { type: 'string' } }))).toBeUndefined();
    expect(xMcpHeaderProblem({ type: 'object' })).toBeUndefined();
    expect(xMcpHeaderProblem(undefined)).toBeUndefined();
    expect(xMcpHeaderProblem(null)).toBeUndefined();
    expect(xMcpHeaderProblem([])).toBeUndefined();
  });

  it('declarations on string, integer and boolean properties', () => {
    const input = schema({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      page: { type: 'integer', 'x-mcp-header': 'Page' },
      dryRun: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
      other: { type: 'number' },
    });
    expect(xMcpHeaderProblem(input)).toBeUndefined();
  });

  it('a declaration nested under properties of properties', () => {
    const input = schema({
      target: schema({ tenant: { type: 'string', 'x-mcp-header': 'Tenant' } }),
    });
    expect(xMcpHeaderProblem(input)).toBeUndefined();
  });

  it('every RFC 9110 token character in the name', () => {
    expect(xMcpHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': "A1!#$%&'*+-.^_`|~z" } }))).toBeUndefined();
  });

  it('the same name in two separate schemas, each checked on its own', () => {
    expect(xMcpHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': 'Region' } }))).toBeUndefined();
    expect(xMcpHeaderProblem(schema({ b: { type: 'string', 'x-mcp-header': 'Region' } }))).toBeUndefined();
  });
});

describe('xMcpHeaderProblem rejects', () => {
  it('an empty name', () => {
    expect(xMcpHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': '' } }))).toBe('x-mcp-header at a is not a non-empty string');
  });

  it('a name that is not a string', () => {
    for (const value of [1, true, null, ['A'], { name: 'A' }]) {
      expect(xMcpHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': value } }))).toBe('x-mcp-header at a is not a non-empty string');
    }
  });

  it('a name with characters outside the token set', () => {
    for (const name of ['Has Space', 'Colon:', 'Quote"', 'New\nLine', 'Ünicode', '(paren)', 'a/b', 'a@b']) {
      expect(xMcpHeaderProblem(schema({ a: { type: 'string', 'x-mcp-header': name } }))).toBe(
        `x-mcp-header "${name}" is not a valid header name`,
      );
    }
  });

  it('the same name declared twice, case-insensitively', () => {
    const input = schema({
      a: { type: 'string', 'x-mcp-header': 'Region' },
      b: schema({ c: { type: 'string', 'x-mcp-header': 'REGION' } }),
    });
    expect(xMcpHeaderProblem(input)).toBe('x-mcp-header "REGION" is declared twice');
  });

  it('a declaration on an object, array, number, null, union or untyped property', () => {
    for (const type of ['object', 'array', 'number', 'null', ['string', 'null'], undefined]) {
      const property = type === undefined ? { 'x-mcp-header': 'H' } : { type, 'x-mcp-header': 'H' };
      expect(xMcpHeaderProblem(schema({ a: property }))).toBe('x-mcp-header "H" is on a property that is not a string, integer or boolean');
    }
  });

  it('a declaration under items', () => {
    const input = schema({ list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } });
    expect(xMcpHeaderProblem(input)).toBe('x-mcp-header at list<items> is not on a plain property');
  });

  it('a declaration under anyOf, oneOf and allOf', () => {
    for (const keyword of ['anyOf', 'oneOf', 'allOf']) {
      const input = schema({ a: { [keyword]: [{ type: 'integer' }, { type: 'string', 'x-mcp-header': 'H' }] } });
      expect(xMcpHeaderProblem(input)).toBe(`x-mcp-header at a<${keyword}> is not on a plain property`);
    }
  });

  it('a declaration under $defs or definitions, even if only referenced', () => {
    const input = schema({ a: { $ref: '#/$defs/region' } }, { $defs: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
    expect(xMcpHeaderProblem(input)).toBe('x-mcp-header at <$defs> is not on a plain property');
    const legacy = schema({}, { definitions: { region: { type: 'string', 'x-mcp-header': 'Region' } } });
    expect(xMcpHeaderProblem(legacy)).toBe('x-mcp-header at <definitions> is not on a plain property');
  });

  it('a declaration under additionalProperties, patternProperties or not', () => {
    expect(xMcpHeaderProblem(schema({}, { additionalProperties: { type: 'string', 'x-mcp-header': 'H' } }))).toBe(
      'x-mcp-header at <additionalProperties> is not on a plain property',
    );
    expect(xMcpHeaderProblem(schema({}, { patternProperties: { '^x': { type: 'string', 'x-mcp-header': 'H' } } }))).toBe(
      'x-mcp-header at <patternProperties> is not on a plain property',
    );
    expect(xMcpHeaderProblem(schema({ a: { not: { type: 'string', 'x-mcp-header': 'H' } } }))).toBe(
      'x-mcp-header at a<not> is not on a plain property',
    );
  });

  it('a declaration on properties below an unreachable keyword', () => {
    const input = schema({ a: { anyOf: [schema({ deep: { type: 'string', 'x-mcp-header': 'Deep' } })] } });
    expect(xMcpHeaderProblem(input)).toBe('x-mcp-header at a<anyOf>.deep is not on a plain property');
  });

  it('a declaration at the root', () => {
    expect(xMcpHeaderProblem({ type: 'string', 'x-mcp-header': 'Root' })).toBe('x-mcp-header at the root is not on a plain property');
    expect(xMcpHeaderProblem(schema({}, { 'x-mcp-header': 'Root' }))).toBe('x-mcp-header at the root is not on a plain property');
  });
});
