/**
 * MCP Events on the provider and the fleet, against a real Events server (the fixture
 * test/fixtures/events-server.mjs) over stdio in both eras and over Streamable HTTP:
 * event types within budgets, servers without the extension, poll subscriptions with
 * at-least-once delivery, terminal errors, the server's error data on every path
 * (bounded, redacted, its retryAfterMs obeyed within the backoff's bounds), and webhook
 * subscriptions whose deliveries a real receiver verifies.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  McpEventError,
  type McpEventSignal,
  type McpLogger,
  McpServerManager,
  type McpServerConfig,
  McpToolProvider,
  parseMcpConfig,
  type McpWebhookDelivery,
  verifyWebhookDelivery,
} from '../src/index.js';
import { fixture, observationLog, observed, startHttpFixture, stdioFixture } from './helpers.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0';
const DELIVERY = { timeout: 10_000, interval: 25 };

async function provider(server: McpServerConfig, logger?: McpLogger): Promise<McpToolProvider> {
  const created = new McpToolProvider({ servers: [server], ...(logger ? { logger } : {}) });
  closers.push(() => created.close());
  await created.init();
  return created;
}

/** A sink that records every signal, and can refuse the first `events` it gets. */
function recorder(options: { refuseFirstEvents?: boolean } = {}): { signals: McpEventSignal[]; deliver(signal: McpEventSignal): void } {
  const signals: McpEventSignal[] = [];
  let refused = false;
  return {
    signals,
    deliver(signal) {
      signals.push(signal);
      if (options.refuseFirstEvents && signal.type === 'events' && signal.events.length > 0 && !refused) {
        refused = true;
        throw new Error('disk full');
      }
    },
  };
}

const eventIds = (signals: McpEventSignal[]): string[] => signals.flatMap((signal) => (signal.type === 'events' ? signal.events.map((event) => event.eventId) : []));

const transports: Array<[string, () => Promise<McpServerConfig>]> = [
  ['stdio, 2025-11-25 (initialize)', () => Promise.resolve(stdioFixture('ev', 'events-server.mjs', { config: { lifecycle: 'initialize' } }))],
  ['stdio, 2026-07-28 (discover)', () => Promise.resolve(stdioFixture('ev', 'events-server.mjs', { config: { lifecycle: 'discover' } }))],
  [
    'Streamable HTTP',
    async () => {
      const http = await startHttpFixture('events-server.mjs');
      closers.push(() => http.close());
      return { id: 'ev', transport: { type: 'http', url: http.url } };
    },
  ],
];

describe.each(transports)('MCP Events over %s', (_transport, config) => {
  it('lists the event types within the budgets, skipping the oversized one and unknown delivery modes', async () => {
    const warnings: string[] = [];
    const logger: McpLogger = { debug() {}, info() {}, error() {}, warn: (_fields, message) => void warnings.push(message) };
    const events = await (await provider(await config(), logger)).listEvents('ev');
    expect(events?.map((type) => type.name)).toEqual(['ticket.created', 'build.failed', 'strange.modes']);
    expect(events?.[0]).toMatchObject({ delivery: ['poll', 'push', 'webhook'], inputSchema: { type: 'object', properties: { project: { type: 'string' } } } });
    expect(events?.[0]?.payloadSchema).toBeDefined();
    expect(events?.[2]).toMatchObject({ delivery: ['poll'], inputSchema: { type: 'object' } });
    expect(warnings.join('\n')).toContain('huge.type');
  });

  it('polls events in order from now, delivering each once the sink took it, until cancelled', async () => {
    const mcp = await provider(await config());
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    expect(subscription.mode).toBe('poll');
    await vi.waitFor(() => expect(sink.signals[0]).toEqual({ type: 'active', mode: 'poll', truncated: false }), DELIVERY);
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 3, title: 'Printer on fire' });
    await vi.waitFor(() => expect(eventIds(sink.signals)).toHaveLength(3), DELIVERY);
    const batches = sink.signals.filter((signal) => signal.type === 'events' && signal.events.length > 0);
    const last = batches.at(-1) as Extract<McpEventSignal, { type: 'events' }>;
    expect(last.events.at(-1)).toMatchObject({ name: 'ticket.created', data: { title: 'Printer on fire' } });
    expect(last.cursor).toMatch(/^c\d+$/);
    await subscription.cancel();
    await subscription.finished;
    expect(sink.signals.at(-1)).toEqual({ type: 'terminated', error: undefined });
  });

  it('pushes a replay, then live events and a burst in order on one stream, and cancels the stream on the server', async () => {
    const log = observationLog();
    const server = await config();
    const withLog: McpServerConfig =
      server.transport.type === 'stdio' ? { ...server, transport: { ...server.transport, env: { ...server.transport.env, FIXTURE_LOG: log, FIXTURE_HEARTBEAT_MS: '100' } } } : server;
    const mcp = await provider(withLog);
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 2 });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push', cursor: 'c0' }, sink);
    expect(subscription.mode).toBe('push');
    await vi.waitFor(() => expect(eventIds(sink.signals)).toHaveLength(2), DELIVERY);
    expect(sink.signals[0]).toEqual({ type: 'active', mode: 'push', truncated: false });
    await mcp.callServerTool('ev', 'burst', { name: 'ticket.created', count: 40 });
    await vi.waitFor(() => expect(eventIds(sink.signals)).toHaveLength(42), DELIVERY);
    const ids = eventIds(sink.signals).map((id) => Number(id.slice('evt-'.length)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(42);
    // Each event came with its own cursor, in order.
    const cursors = sink.signals.flatMap((signal) => (signal.type === 'events' && signal.events.length === 1 ? [signal.cursor] : []));
    expect(cursors.at(-1)).toBe(`c${ids.at(-1)}`);
    await subscription.cancel();
    expect(sink.signals.at(-1)).toEqual({ type: 'terminated', error: undefined });
    if (server.transport.type === 'stdio') await vi.waitFor(() => expect(observed(log).some((entry) => entry.event === 'stream-cancelled')).toBe(true), DELIVERY);
  });

  it('ends a push subscription on a terminated notice, with its error', async () => {
    const mcp = await provider(await config());
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push' }, sink);
    await vi.waitFor(() => expect(sink.signals[0]?.type).toBe('active'), DELIVERY);
    await mcp.callServerTool('ev', 'terminate', {});
    await subscription.finished;
    expect(sink.signals.at(-1)).toMatchObject({ type: 'terminated', error: { kind: 'forbidden', rpcCode: -32024, reason: 'access_revoked' } });
  });
});

/** Makes the fixture answer the next requests of an events/* method with this JSON-RPC error (its fail-next tool). */
async function failNext(mcp: McpToolProvider, method: string, error: { code?: number; message?: string; data?: unknown; times?: number }): Promise<void> {
  const result = await mcp.callServerTool('ev', 'fail-next', { method, ...error });
  expect(result.isError).toBeFalsy();
}

type ErrorSignal = Extract<McpEventSignal, { type: 'error' }>;
const errorSignals = (signals: McpEventSignal[]): ErrorSignal[] => signals.filter((signal): signal is ErrorSignal => signal.type === 'error');
const QUOTA = { limit: 'subscriptions', max: 10, retryAfterMs: 45_000 };

describe.each(transports)('MCP Events error data over %s', (_transport, config) => {
  it('keeps the data of a poll error, and the retry waits the retryAfterMs of a resource_exhausted one', async () => {
    const mcp = await provider(await config());
    await failNext(mcp, 'events/poll', { code: -32025, message: 'Too many subscriptions', data: QUOTA });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(1), DELIVERY);
    const [signal] = errorSignals(sink.signals);
    expect(signal!.error).toBeInstanceOf(McpEventError);
    expect(signal!.error).toMatchObject({ kind: 'resource_exhausted', rpcCode: -32025, data: QUOTA, dataDropped: false, retryAfterMs: 45_000 });
    expect(signal!.retryInMs).toBe(45_000);
    await subscription.cancel();
    expect(sink.signals.at(-1)).toEqual({ type: 'terminated', error: undefined });
  });

  it('keeps the data of a stream error notice and of a terminated notice, and the retry waits the terminated notice\'s retryAfterMs', async () => {
    const mcp = await provider(await config());
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push' }, sink);
    await vi.waitFor(() => expect(sink.signals[0]?.type).toBe('active'), DELIVERY);
    await mcp.callServerTool('ev', 'stream-error', { message: 'Bad filter', data: { field: 'project', reason: 'unknown_project' } });
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(1), DELIVERY);
    expect(errorSignals(sink.signals)[0]).toMatchObject({ error: { kind: 'other', reason: 'unknown_project', data: { field: 'project', reason: 'unknown_project' } } });
    // A notice changes nothing: no retry.
    expect(errorSignals(sink.signals)[0]!.retryInMs).toBeUndefined();
    await mcp.callServerTool('ev', 'terminate', { code: -32025, message: 'Too many streams', data: { ...QUOTA, limit: 'streams', retryAfterMs: 20_000 } });
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(2), DELIVERY);
    const ended = errorSignals(sink.signals)[1]!;
    expect(ended.error).toMatchObject({ kind: 'resource_exhausted', data: { limit: 'streams', max: 10, retryAfterMs: 20_000 }, terminal: false });
    expect(ended.retryInMs).toBe(20_000);
    await subscription.cancel();
  });

  it('ends a push subscription whose stream request fails terminally, with the error\'s data', async () => {
    const mcp = await provider(await config());
    await failNext(mcp, 'events/stream', { code: -32602, message: 'Invalid params', data: { field: 'cursor', reason: 'expired' } });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push' }, sink);
    await subscription.finished;
    expect(sink.signals.at(-1)).toMatchObject({ type: 'terminated', error: { kind: 'invalid_params', reason: 'expired', data: { field: 'cursor', reason: 'expired' } } });
  });

  it('keeps the data of an events/list error', async () => {
    const mcp = await provider(await config());
    await failNext(mcp, 'events/list', { code: -32025, message: 'Slow down', data: { limit: 'requests', max: 5, retryAfterMs: 1_000 } });
    const error = await mcp.listEvents('ev').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpEventError);
    expect(error).toMatchObject({ kind: 'resource_exhausted', data: { limit: 'requests', max: 5, retryAfterMs: 1_000 }, retryAfterMs: 1_000 });
  });
});

const TOKEN = 'tok_live_5f3a9c2e81d04b7a';

describe('MCP Events error data: bounded, redacted, retryAfterMs clamped', () => {
  it('drops data over 4 KiB and says so, keeping the reason and the retryAfterMs', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    await failNext(mcp, 'events/poll', { code: -32025, message: 'Over quota', data: { reason: 'quota', retryAfterMs: 30_000, detail: 'x'.repeat(5_000) } });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(1), DELIVERY);
    const { error, retryInMs } = errorSignals(sink.signals)[0]!;
    expect(error).toMatchObject({ kind: 'resource_exhausted', reason: 'quota', dataDropped: true, retryAfterMs: 30_000 });
    expect(error.data).toBeUndefined();
    expect(error.message).toContain('error data was over 4096 bytes');
    expect(retryInMs).toBe(30_000);
    // Nothing of the dropped data is kept, not even through the cause.
    expect(inspect(error, { depth: 20 })).not.toContain('x'.repeat(100));
    await subscription.cancel();
  });

  it('redacts the server\'s secrets from the data and the message of poll, push and webhook errors, keys and causes included', async () => {
    const hooks = await receiver();
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_TOKEN: TOKEN } }));
    const echoed = { reason: `token ${TOKEN} expired`, [TOKEN]: [`Bearer ${TOKEN}`, 7], nested: { secret: SECRET } };
    const expected = { reason: 'token [REDACTED] expired', '[REDACTED]': ['Bearer [REDACTED]', 7] };
    const errors: McpEventError[] = [];

    await failNext(mcp, 'events/poll', { code: -32603, message: `Upstream refused ${TOKEN}`, data: echoed });
    const sink = recorder();
    const poll = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(1), DELIVERY);
    await poll.cancel();
    errors.push(errorSignals(sink.signals)[0]!.error);

    const pushSink = recorder();
    const push = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push' }, pushSink);
    await vi.waitFor(() => expect(pushSink.signals[0]?.type).toBe('active'), DELIVERY);
    await mcp.callServerTool('ev', 'stream-error', { message: `Upstream refused ${TOKEN}`, data: echoed });
    await vi.waitFor(() => expect(errorSignals(pushSink.signals)).toHaveLength(1), DELIVERY);
    await push.cancel();
    errors.push(errorSignals(pushSink.signals)[0]!.error);

    await failNext(mcp, 'events/subscribe', { code: -32025, message: `No more hooks for ${TOKEN} (${SECRET})`, data: echoed });
    errors.push((await mcp.subscribeWebhook('ev', { name: 'ticket.created', url: hooks.url, secret: SECRET }).catch((caught: unknown) => caught)) as McpEventError);

    for (const error of errors) {
      expect(error).toBeInstanceOf(McpEventError);
      expect(error.data).toMatchObject(expected);
      expect(error.reason).toBe('token [REDACTED] expired');
      expect(error.message).toContain('[REDACTED]');
      for (const shown of [error.message, JSON.stringify(error.data), inspect(error, { depth: 20 })]) expect(shown).not.toContain(TOKEN);
    }
    // The webhook secret is the application's: scrubbed from that error too.
    const webhook = errors[2]!;
    expect(webhook.data).toMatchObject({ nested: { secret: '[redacted]' } });
    for (const shown of [webhook.message, JSON.stringify(webhook.data), inspect(webhook, { depth: 20 })]) expect(shown).not.toContain(SECRET);
  });

  it('keeps the data of a failed webhook renewal in the warning, and retries after its retryAfterMs', async () => {
    const hooks = await receiver();
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger: McpLogger = { debug() {}, info() {}, error() {}, warn: (fields, message) => void warnings.push({ fields, message }) };
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'), logger);
    await mcp.subscribeWebhook('ev', { name: 'ticket.created', url: hooks.url, secret: SECRET, ttlMs: 2_000 });
    await failNext(mcp, 'events/subscribe', { code: -32025, message: 'Too many renewals', data: { ...QUOTA, retryAfterMs: 60_000 } });
    await vi.waitFor(() => expect(warnings.some((warning) => warning.message.includes('renewing'))).toBe(true), DELIVERY);
    const warning = warnings.find((entry) => entry.message.includes('renewing'))!;
    expect(warning.fields).toMatchObject({ kind: 'resource_exhausted', rpcCode: -32025, data: { ...QUOTA, retryAfterMs: 60_000 }, retryInMs: 60_000 });
    expect(warning.message).toContain('retrying in 60 s');
    await mcp.unsubscribeWebhook('ev', { name: 'ticket.created', url: hooks.url });
  });

  it('clamps a retryAfterMs to the minimum backoff and to 5 minutes, and ignores it for other kinds', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    await failNext(mcp, 'events/poll', { code: -32025, message: 'Busy', data: { retryAfterMs: 10 } });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(1), DELIVERY);
    // Armed before the retry (2 s away) asks again.
    await failNext(mcp, 'events/poll', { code: -32025, message: 'Busy', data: { retryAfterMs: 3_600_000 } });
    await vi.waitFor(() => expect(errorSignals(sink.signals)).toHaveLength(2), DELIVERY);
    expect(errorSignals(sink.signals).map((signal) => [signal.error.retryAfterMs, signal.retryInMs])).toEqual([
      [10, 2_000],
      [3_600_000, 300_000],
    ]);
    await subscription.cancel();

    // An internal error's hint is not a quota: the backoff of its own applies.
    await failNext(mcp, 'events/poll', { code: -32603, message: 'Oops', data: { retryAfterMs: 45_000 } });
    const other = recorder();
    const second = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, other);
    await vi.waitFor(() => expect(errorSignals(other.signals)).toHaveLength(1), DELIVERY);
    expect(errorSignals(other.signals)[0]).toMatchObject({ error: { kind: 'other', retryAfterMs: 45_000 }, retryInMs: 2_000 });
    await second.cancel();
  });
});

describe('MCP Events delivery guarantees', () => {
  it('redelivers the events a sink refused, from the last accepted cursor, after a backoff', async () => {
    const log = observationLog();
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_LOG: log } }));
    await mcp.callServerTool('ev', 'emit', { name: 'build.failed', count: 1 });
    const start = observed(log).length;
    const sink = recorder({ refuseFirstEvents: true });
    // From the cursor before the event: the event is replayed.
    const subscription = mcp.subscribeEvents('ev', { name: 'build.failed', mode: 'poll', cursor: 'c0' }, sink);
    await vi.waitFor(() => expect(eventIds(sink.signals)).toEqual(['evt-1', 'evt-1']), { timeout: 15_000, interval: 50 });
    expect(sink.signals.some((signal) => signal.type === 'error' && signal.error.message.includes('disk full'))).toBe(true);
    // Both polls asked from c0: the refused signal's cursor was never used.
    const polls = observed(log).slice(start).filter((entry) => entry.method === 'events/poll');
    expect(polls.slice(0, 2).map((entry) => entry.cursor)).toEqual(['c0', 'c0']);
    await subscription.cancel();
  });

  it('ends a subscription with a terminal error: an unknown type, a forbidden one', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    for (const [name, kind, code] of [['no.such.type', 'not_found', -32023], ['forbidden.type', 'forbidden', -32024]] as const) {
      const sink = recorder();
      const subscription = mcp.subscribeEvents('ev', { name, mode: 'poll' }, sink);
      await subscription.finished;
      const end = sink.signals.at(-1) as Extract<McpEventSignal, { type: 'terminated' }>;
      expect(end.type).toBe('terminated');
      expect(end.error).toBeInstanceOf(McpEventError);
      expect(end.error).toMatchObject({ kind, rpcCode: code, serverId: 'ev', terminal: true });
    }
  });

  it('ends a subscription when its server is removed', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    await vi.waitFor(() => expect(sink.signals[0]?.type).toBe('active'), DELIVERY);
    await mcp.removeServer('ev');
    await subscription.finished;
    expect(sink.signals.at(-1)).toMatchObject({ type: 'terminated', error: { kind: 'server_removed' } });
  });

  it('refuses a webhook mode and a bad name before anything is sent', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    const sink = recorder();
    expect(() => mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'webhook' as 'poll' }, sink)).toThrow(/subscribeWebhook/);
    expect(() => mcp.subscribeEvents('ev', { name: '', mode: 'poll' }, sink)).toThrow(McpEventError);
  });
});

describe('servers without MCP Events', () => {
  it('list no event types: null for a server that does not know events/list', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_NO_EVENTS: '1' } }));
    expect(await mcp.listEvents('ev')).toBeNull();
  });

  it('list no event types: null for a server that never answers events/list (within the probe time)', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_SILENT_EVENTS_LIST: '1' }, config: { timeouts: { requestMs: 500 } } }));
    expect(await mcp.listEvents('ev')).toBeNull();
  });
});

/** A webhook receiver that verifies every delivery and answers the challenge. */
async function receiver(): Promise<{ url: string; deliveries: McpWebhookDelivery[]; refused: string[] }> {
  const deliveries: McpWebhookDelivery[] = [];
  const refused: string[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const delivery = verifyWebhookDelivery({ secret: SECRET, headers: request.headers, body: Buffer.concat(chunks) });
        deliveries.push(delivery);
        if (delivery.kind === 'verification') response.writeHead(delivery.response.status, delivery.response.headers).end(delivery.response.body);
        else response.writeHead(204).end();
      } catch (error) {
        refused.push(error instanceof Error ? error.message : String(error));
        response.writeHead(401).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, deliveries, refused };
}

describe('webhook subscriptions', () => {
  it('subscribe through the challenge, deliver signed events a receiver verifies, renew before refreshBefore, and unsubscribe', async () => {
    const log = observationLog();
    const hooks = await receiver();
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_LOG: log } }));
    const subscription = await mcp.subscribeWebhook('ev', { name: 'ticket.created', url: hooks.url, secret: SECRET, ttlMs: 2_000 });
    expect(subscription.id).toMatch(/^sub_/);
    expect(subscription.refreshBefore).toBeInstanceOf(Date);
    expect(hooks.deliveries[0]?.kind).toBe('verification');

    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', title: 'Webhooked' });
    await vi.waitFor(() => expect(hooks.deliveries.some((delivery) => delivery.kind === 'event')).toBe(true), DELIVERY);
    const event = hooks.deliveries.find((delivery) => delivery.kind === 'event')!;
    expect(event).toMatchObject({ kind: 'event', subscriptionId: subscription.id, event: { name: 'ticket.created', data: { title: 'Webhooked' } } });
    expect(hooks.refused).toEqual([]);

    // Renewed before its 2 s run out, with the same id.
    await vi.waitFor(() => expect(observed(log).some((entry) => entry.event === 'webhook-subscribed' && entry.refreshed === true)).toBe(true), DELIVERY);
    await mcp.unsubscribeWebhook('ev', { name: 'ticket.created', url: hooks.url });
    expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'webhook-unsubscribed', found: true }));
    expect(JSON.stringify(observed(log))).not.toContain(SECRET);
    expect(inspect(mcp, { depth: 10 })).not.toContain(SECRET);
    expect(JSON.stringify(mcp)).not.toContain(SECRET);
  });

  it('fail with a callback_endpoint error when the receiver does not answer the challenge, never showing the secret', async () => {
    const silent = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => silent.close(resolve)));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hooks`;
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    const error = await mcp.subscribeWebhook('ev', { name: 'ticket.created', url, secret: SECRET }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpEventError);
    expect(error).toMatchObject({ kind: 'callback_endpoint', reason: 'challenge_failed' });
    expect(String((error as Error).message)).not.toContain(SECRET);
    await expect(mcp.subscribeWebhook('ev', { name: 'ticket.created', url, secret: 'not-a-secret' })).rejects.toMatchObject({ kind: 'invalid_params' });
  });
});

describe('MCP Events through the fleet', () => {
  it('lists and polls on a server the fleet runs', async () => {
    const file = parseMcpConfig(JSON.stringify({ mcpServers: { ev: { command: process.execPath, args: [fixture('events-server.mjs')] } } }));
    const fleet = new McpServerManager({ file });
    closers.push(() => fleet.shutdown());
    await fleet.startAll();
    expect((await fleet.listEvents('ev'))?.map((type) => type.name)).toContain('ticket.created');
    const sink = recorder();
    const subscription = fleet.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sink);
    await vi.waitFor(() => expect(sink.signals[0]?.type).toBe('active'), DELIVERY);
    await fleet.callServerTool('ev', 'emit', { name: 'ticket.created' });
    await vi.waitFor(() => expect(eventIds(sink.signals)).toHaveLength(1), DELIVERY);
    await subscription.cancel();
  });
});

/** Event ids in first-seen order, duplicates (redeliveries) dropped. */
const deduplicated = (signals: McpEventSignal[]): string[] => [...new Set(eventIds(signals))];
const sequence = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, index) => `evt-${from + index}`);
const LONG = { timeout: 30_000, interval: 50 };

describe('MCP Events acceptance', () => {
  it('delivers a 250-event backlog in order, in pages, and the cursors the server saw are the ones the sink accepted', async () => {
    const log = observationLog();
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_LOG: log } }));
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 250 });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll', cursor: 'c0' }, sink);
    await vi.waitFor(() => expect(eventIds(sink.signals)).toHaveLength(250), LONG);
    await subscription.cancel();
    expect(eventIds(sink.signals)).toEqual(sequence(1, 250));
    const accepted = sink.signals.flatMap((signal) => (signal.type === 'events' ? [signal.cursor] : []));
    expect(accepted).toEqual(['c100', 'c200', 'c250']);
    const asked = observed(log).filter((entry) => entry.method === 'events/poll').map((entry) => entry.cursor);
    // The first poll asked from the given cursor, each later one from the cursor the sink had just accepted.
    expect(asked.slice(0, 3)).toEqual(['c0', 'c100', 'c200']);
    expect(asked.slice(3).every((cursor) => cursor === 'c250')).toBe(true);
    expect(observed(log).find((entry) => entry.method === 'events/poll')).toMatchObject({ maxEvents: 100 });
  });

  it('gives the sink the exact push sequence: active, one events signal per event with its cursor, nothing for heartbeats', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_HEARTBEAT_MS: '50' } }));
    await mcp.callServerTool('ev', 'emit', { name: 'build.failed' });
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 2 });
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push', cursor: 'c1' }, sink);
    await vi.waitFor(() => expect(eventIds(sink.signals)).toHaveLength(2), DELIVERY);
    // Heartbeats at the same cursor add nothing.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await subscription.cancel();
    expect(sink.signals.map((signal) => (signal.type === 'events' ? `events ${signal.events.map((event) => event.eventId).join(',')} ${signal.cursor}` : signal.type))).toEqual([
      'active',
      'events evt-2 c2',
      'events evt-3 c3',
      'terminated',
    ]);
  });

  it('delivers a push burst of 500 events in the order the server sent them, and cancelling cancels the stream on the server', async () => {
    const log = observationLog();
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_LOG: log } }));
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push' }, sink);
    await vi.waitFor(() => expect(sink.signals[0]?.type).toBe('active'), DELIVERY);
    await mcp.callServerTool('ev', 'burst', { name: 'ticket.created', count: 500 });
    await vi.waitFor(() => expect(deduplicated(sink.signals)).toHaveLength(500), LONG);
    expect(deduplicated(sink.signals)).toEqual(sequence(1, 500));
    await subscription.cancel();
    await vi.waitFor(() => expect(observed(log).some((entry) => entry.event === 'stream-cancelled')).toBe(true), DELIVERY);
  });

  it('loses no event when a sink refuses once: seen after deduplication is everything sent, in order', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 5 });
    const sink = recorder({ refuseFirstEvents: true });
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push', cursor: 'c0' }, sink);
    await vi.waitFor(() => expect(deduplicated(sink.signals)).toHaveLength(5), LONG);
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 2 });
    await vi.waitFor(() => expect(deduplicated(sink.signals)).toEqual(sequence(1, 7)), LONG);
    expect(eventIds(sink.signals).filter((id) => id === 'evt-1')).toHaveLength(2);
    await subscription.cancel();
  });

  it('recovers a push subscription from its cursor after the server is killed mid-stream, losing nothing', async () => {
    const state = `${observationLog()}.state`;
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_STATE: state } }));
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push', cursor: 'c0' }, sink);
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 3 });
    await vi.waitFor(() => expect(deduplicated(sink.signals)).toHaveLength(3), DELIVERY);
    const pid = mcp.serverStatuses()[0]!.pid!;
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(sink.signals.some((signal) => signal.type === 'error')).toBe(true), DELIVERY);
    // The next call starts a new server process; it goes on from the same event log.
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 3 });
    await vi.waitFor(() => expect(deduplicated(sink.signals)).toEqual(sequence(1, 6)), LONG);
    expect(mcp.serverStatuses()[0]!.pid).not.toBe(pid);
    await subscription.cancel();
  });

  it('reopens a stream the server ended normally, from the last accepted cursor', async () => {
    const log = observationLog();
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs', { env: { FIXTURE_LOG: log } }));
    const sink = recorder();
    const subscription = mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push', cursor: 'c0' }, sink);
    await mcp.callServerTool('ev', 'emit', { name: 'ticket.created', count: 2 });
    await vi.waitFor(() => expect(deduplicated(sink.signals)).toHaveLength(2), DELIVERY);
    await mcp.callServerTool('ev', 'end-streams', {});
    await vi.waitFor(() => expect(observed(log).filter((entry) => entry.method === 'events/stream').map((entry) => entry.cursor)).toEqual(['c0', 'c2']), DELIVERY);
    await subscription.cancel();
    expect(sink.signals.filter((signal) => signal.type === 'terminated')).toHaveLength(1);
  });

  it('ends every poll and push subscription of a removed server with terminated / server_removed', async () => {
    const mcp = await provider(stdioFixture('ev', 'events-server.mjs'));
    const sinks = [recorder(), recorder()];
    const subscriptions = [
      mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'poll' }, sinks[0]!),
      mcp.subscribeEvents('ev', { name: 'ticket.created', mode: 'push' }, sinks[1]!),
    ];
    await vi.waitFor(() => expect(sinks.every((sink) => sink.signals[0]?.type === 'active')).toBe(true), DELIVERY);
    await mcp.removeServer('ev');
    await Promise.all(subscriptions.map((subscription) => subscription.finished));
    for (const sink of sinks) expect(sink.signals.at(-1)).toMatchObject({ type: 'terminated', error: { kind: 'server_removed' } });
  });
});

describe('McpEventError', () => {
  it('classifies both generations of the draft\'s codes, keeps data.reason, and knows which end a subscription', async () => {
    const { eventErrorFromWire: fromWire, eventErrorKind } = await import('../src/mcp/context/events/errors.js');
    const eventErrorFromWire = (serverId: string, operation: string, error: { code?: unknown; message?: unknown; data?: unknown }) => fromWire(serverId, operation, error, (text) => text);
    const kinds = [-32601, -32602, -32023, -32011, -32024, -32012, -32025, -32013, -32026, -32014, -32027, -32015, -32603].map(eventErrorKind);
    expect(kinds).toEqual(['unsupported', 'invalid_params', 'not_found', 'not_found', 'forbidden', 'forbidden', 'resource_exhausted', 'resource_exhausted', 'unsupported', 'unsupported', 'callback_endpoint', 'callback_endpoint', 'other']);
    const error = eventErrorFromWire('ev', 'events/subscribe', { code: -32015, message: 'CallbackEndpointError', data: { reason: 'challenge_failed' } });
    expect(error).toMatchObject({ kind: 'callback_endpoint', reason: 'challenge_failed', rpcCode: -32015, terminal: false });
    expect(error.message).toContain('CallbackEndpointError: challenge_failed');
    expect(eventErrorFromWire('ev', 'x', { code: -32023, message: 'gone', data: { kind: 'event' } })).toMatchObject({ reason: 'event', terminal: true });
    const long = eventErrorFromWire('ev', 'x', { code: -32603, message: 'm'.repeat(2000), data: { reason: 'r'.repeat(2000) } });
    expect(long.message.length).toBeLessThan(900);
    expect(long.terminal).toBe(false);
  });

  it('keeps any JSON error data up to 4 KiB serialised, and drops one byte more with a note', async () => {
    const { eventErrorFromWire } = await import('../src/mcp/context/events/errors.js');
    const same = (text: string): string => text;
    for (const data of [{ field: 'cursor', reason: 'expired' }, ['a', 1, null], 'plain', 0, null]) {
      expect(eventErrorFromWire('ev', 'x', { code: -32602, message: 'bad', data }, same)).toMatchObject({ data, dataDropped: false });
    }
    expect(eventErrorFromWire('ev', 'x', { code: -32602, message: 'bad' }, same)).toMatchObject({ data: undefined, dataDropped: false });
    // {"pad":"..."} is 10 bytes around the string.
    const fits = eventErrorFromWire('ev', 'x', { code: -32603, message: 'm', data: { pad: 'p'.repeat(4096 - 10) } }, same);
    expect([fits.dataDropped, JSON.stringify(fits.data).length]).toEqual([false, 4096]);
    const over = eventErrorFromWire('ev', 'x', { code: -32603, message: 'm', data: { pad: 'p'.repeat(4096 - 9) } }, same);
    expect([over.dataDropped, over.data]).toEqual([true, undefined]);
    expect(over.message).toBe('MCP server "ev": x failed: m (its error data was over 4096 bytes serialised and was dropped)');
    let deep: unknown = 'bottom';
    for (let level = 0; level < 1_500; level++) deep = [deep];
    expect(eventErrorFromWire('ev', 'x', { code: -32603, message: 'm', data: deep }, same)).toMatchObject({ data: undefined, dataDropped: true });
  });

  it('redacts error data like the message (keys, strings, numbers), keeps a "__proto__" key a key, and reads retryAfterMs', async () => {
    const { eventErrorFromWire } = await import('../src/mcp/context/events/errors.js');
    const redact = (text: string): string => text.split('s3cr3t').join('[REDACTED]');
    const data = JSON.parse('{"__proto__": {"polluted": true}, "s3cr3t": "a s3cr3t b", "code": 1234, "reason": "s3cr3t"}') as unknown;
    const error = eventErrorFromWire('ev', 'x', { code: -32025, message: 'over s3cr3t', data }, (text) => redact(text).split('1234').join('[REDACTED]'));
    expect(error.data).toEqual(JSON.parse('{"__proto__": {"polluted": true}, "[REDACTED]": "a [REDACTED] b", "code": "[REDACTED]", "reason": "[REDACTED]"}'));
    expect(Object.getPrototypeOf(error.data)).toBe(Object.prototype);
    expect([error.reason, error.message]).toEqual(['[REDACTED]', 'MCP server "ev": x failed: over [REDACTED]: [REDACTED]']);
    // A secret cut in half by the length limit would no longer be found: redacted first, then cut.
    const long = eventErrorFromWire('ev', 'x', { code: -32603, message: `${'m'.repeat(509)}s3cr3t`, data: { reason: `${'r'.repeat(253)}s3cr3t` } }, redact);
    expect(long.message).not.toContain('s3c');
    expect(long.reason).not.toContain('s3c');
    const hint = (retryAfterMs: unknown): number | undefined => eventErrorFromWire('ev', 'x', { code: -32025, data: { retryAfterMs } }, redact).retryAfterMs;
    expect([hint(1_500), hint(0), hint(-1), hint('1500'), hint(Number.POSITIVE_INFINITY), hint(undefined)]).toEqual([1_500, 0, undefined, undefined, undefined, undefined]);
  });
});
