/**
 * The direct call path's shortcuts (issue 16) against the SDK's own verdicts: a result,
 * or a JSON-RPC message, that a shortcut takes must be one the SDK accepts and returns
 * unchanged. Generated values sit on both sides of the shortcuts' line, and every
 * property also checks that both sides were reached, so it cannot pass vacuously.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Client, parseJSONRPCMessage, SERVER_INFO_META_KEY } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { plainCallResult } from '../src/mcp/calls/plain-result.js';
import { plainResultResponse } from '../src/mcp/transport/plain-message.js';
import { fixture } from './helpers.js';

// A fixed seed by default, so a run in CI is repeatable; FC_SEED=<n> replays another, FC_SEED=random explores.
const seed = process.env.FC_SEED === 'random' ? Date.now() ^ (Math.random() * 2 ** 31) : Number(process.env.FC_SEED ?? 20261202);

/** The negotiated era's codec, which the SDK's `callTool` decodes and validates results with. */
class CodecProbe extends Client {
  verdict(raw: unknown): { ok: true; value: unknown } | { ok: false } {
    const codec = this._wireCodec();
    const decoded = codec.decodeResult('tools/call', structuredClone(raw));
    if (decoded.kind !== 'complete') return { ok: false };
    const outcome = codec.validateResult('tools/call', decoded.result);
    return outcome.ok ? { ok: true, value: outcome.value } : { ok: false };
  }
}

const probes: Record<'modern' | 'legacy', CodecProbe> = {} as never;

beforeAll(async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const client = new CodecProbe({ name: 'probe', version: '0' }, { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture('v2-server.mjs')], stderr: 'ignore' }));
    expect(client.getProtocolEra()).toBe(era);
    probes[era] = client;
  }
});

afterAll(async () => {
  await Promise.all(Object.values(probes).map((client) => client.close()));
});

const text = fc.string({ maxLength: 6 });
/** Mostly the plain shape; otherwise one of the ways a value can differ from it. */
const serverInfo = fc.oneof(
  { weight: 4, arbitrary: fc.record({ name: text, version: text }) },
  fc.record({ name: text, version: text, title: text }),
  fc.record({ name: text }),
  fc.record({ name: fc.integer(), version: text }),
  fc.constant(null),
);
const meta = fc.oneof(
  { weight: 4, arbitrary: serverInfo.map((info) => ({ [SERVER_INFO_META_KEY]: info })) },
  fc.constant({}),
  fc.record({ note: text }),
  fc.constant('meta'),
);
const block = fc.oneof(
  { weight: 8, arbitrary: fc.record({ type: fc.constant('text'), text }) },
  fc.record({ type: fc.constant('text'), text: fc.integer() }),
  fc.record({ type: fc.constant('text'), text, annotations: fc.record({ priority: fc.double({ min: 0, max: 1, noNaN: true }) }) }),
  fc.record({ type: fc.constant('image'), data: fc.base64String({ maxLength: 8 }), mimeType: fc.constant('image/png') }),
  fc.record({ type: fc.constantFrom('text', 'audio', 'video'), text }),
);
/** Each key is present or not; `maybe` weighs the plain value heavier than the odd ones. */
const maybe = <T,>(plain: fc.Arbitrary<T>, odd: fc.Arbitrary<unknown>) => fc.oneof({ weight: 6, arbitrary: plain }, odd);
const result = fc
  .tuple(
    fc.record(
      {
        content: maybe(fc.array(block, { maxLength: 3 }), fc.constant('hello')),
        isError: maybe(fc.boolean(), fc.constant('yes')),
        resultType: maybe(fc.constant('complete'), fc.constantFrom('input_required', 'task', 7)),
        _meta: meta,
      },
      { requiredKeys: [] },
    ),
    // Now and then a key only some servers send.
    fc.option(fc.oneof(fc.record({ structuredContent: fc.oneof(fc.record({ value: text }), fc.constant(3)) }), fc.record({ toolResult: text })), { freq: 4 }),
  )
  .map(([base, extra]) => ({ ...base, ...extra }));

describe('a plain call result', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`is accepted by the SDK's ${era} codec and returned unchanged`, () => {
      let plain = 0;
      let other = 0;
      fc.assert(
        fc.property(result, (raw) => {
          const mine = plainCallResult(structuredClone(raw), era === 'modern');
          if (mine === undefined) {
            other++;
            return;
          }
          plain++;
          const sdk = probes[era].verdict(raw);
          expect(sdk.ok).toBe(true);
          expect(mine).toEqual((sdk as { value: unknown }).value);
        }),
        { seed, numRuns: 2000 },
      );
      expect(plain).toBeGreaterThan(20);
      expect(other).toBeGreaterThan(20);
    });
  }

  it('is the echo result an SDK server sends on each era', () => {
    const info = { [SERVER_INFO_META_KEY]: { name: 'fixture-v2', version: '1.0.0' } };
    expect(plainCallResult({ content: [{ type: 'text', text: 'hello' }], resultType: 'complete', _meta: info }, true)).toEqual({
      content: [{ type: 'text', text: 'hello' }],
      _meta: info,
    });
    expect(plainCallResult({ content: [{ type: 'text', text: 'hello' }] }, false)).toEqual({ content: [{ type: 'text', text: 'hello' }] });
  });

  it('must say resultType on 2026-07-28, as the SDK requires', () => {
    expect(plainCallResult({ content: [] }, true)).toBeUndefined();
    expect(probes.modern.verdict({ content: [] }).ok).toBe(false);
  });
});

const id = maybe(fc.oneof(fc.integer({ min: -5, max: 5 }), text), fc.oneof(fc.double({ min: 0.5, max: 2, noNaN: true }), fc.constant(null)));
const message = fc
  .tuple(
    fc.record({
      jsonrpc: maybe(fc.constant('2.0'), fc.constant('1.0')),
      id,
      result: maybe(fc.record({ content: fc.array(block, { maxLength: 2 }), _meta: meta }, { requiredKeys: [] }), fc.constantFrom([], null)),
    }),
    // Now and then a key a result response must not have, or without one it must have.
    fc.option(fc.constantFrom('error', 'method', 'no-id'), { freq: 4 }),
  )
  .map(([response, odd]) => {
    if (odd === 'no-id') {
      const { id: _id, ...rest } = response;
      return rest;
    }
    if (odd === 'error') return { ...response, error: { code: -32603, message: 'failed' } };
    if (odd === 'method') return { ...response, method: 'ping' };
    return response;
  });

describe('a plain result response', () => {
  it('is a message the SDK parses to an equal value', () => {
    let plain = 0;
    let other = 0;
    fc.assert(
      fc.property(message, (raw) => {
        const mine = plainResultResponse(structuredClone(raw));
        if (mine === undefined) {
          other++;
          return;
        }
        plain++;
        expect(mine).toEqual(parseJSONRPCMessage(structuredClone(raw)));
      }),
      { seed, numRuns: 2000 },
    );
    expect(plain).toBeGreaterThan(20);
    expect(other).toBeGreaterThan(20);
  });
});
