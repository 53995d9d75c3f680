/**
 * A self-test of the fixture `fixtures/events-server.mjs`, the server side of the
 * experimental MCP Events extension, driven with the raw v2 SDK client (custom requests
 * with a result schema, custom notification handlers) over stdio on both protocol eras
 * (2025-11-25 through `initialize`, 2026-07-28 pinned) and over Streamable HTTP. Webhook
 * deliveries go to a real local receiver, which checks their Standard Webhooks signatures.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, ProtocolError, SdkError, SdkErrorCode, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { fixture, observationLog, observed, startHttpFixture, type HttpFixture } from './helpers.js';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const EXTENSION = 'io.modelcontextprotocol/events';
const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];
/** Generous bound for something the fixture does at once (the machine may be loaded). */
const DELIVERY = { timeout: 10_000, interval: 20 };
/** Fast timers, so heartbeats are seen within a test. */
const FAST = { FIXTURE_HEARTBEAT_MS: '200', FIXTURE_NEXT_POLL_MS: '250' };

const EventSchema = z.looseObject({ eventId: z.string(), name: z.string(), timestamp: z.string(), data: z.unknown(), cursor: z.string() });
const ListResult = z.looseObject({
  events: z.array(
    z.looseObject({
      name: z.string(),
      description: z.string().optional(),
      delivery: z.array(z.string()),
      inputSchema: z.record(z.string(), z.unknown()).optional(),
      payloadSchema: z.record(z.string(), z.unknown()).optional(),
    }),
  ),
  nextCursor: z.string().optional(),
});
const PollResult = z.looseObject({
  events: z.array(EventSchema),
  cursor: z.string().nullable(),
  hasMore: z.boolean(),
  nextPollMs: z.number().optional(),
  truncated: z.boolean(),
});
const SubscribeResult = z.looseObject({ id: z.string(), refreshBefore: z.string().nullable(), cursor: z.string(), truncated: z.boolean() });
const AnyResult = z.looseObject({});

interface Notice {
  method: string;
  params: Record<string, unknown>;
}

interface Connected {
  client: Client;
  log: string;
  notices: Notice[];
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

function newClient(era: Era): { client: Client; notices: Notice[] } {
  const client = new Client(
    { name: 'events-self-test', version: '1.0.0' },
    era === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const notices: Notice[] = [];
  for (const kind of ['active', 'event', 'heartbeat', 'error', 'terminated', 'list_changed']) {
    const method = `notifications/events/${kind}`;
    client.setNotificationHandler(method, { params: z.looseObject({}) }, (params) => {
      notices.push({ method, params });
    });
  }
  cleanups.push(() => client.close());
  return { client, notices };
}

async function stdioClient(era: Era, env: Record<string, string> = {}): Promise<Connected> {
  const log = observationLog();
  const { client, notices } = newClient(era);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [fixture('events-server.mjs')], env: { FIXTURE_LOG: log, ...FAST, ...env } }),
  );
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  return { client, log, notices };
}

async function httpFixture(env: Record<string, string> = {}): Promise<{ server: HttpFixture; log: string }> {
  const log = observationLog();
  const server = await startHttpFixture('events-server.mjs', { env: { FIXTURE_LOG: log, ...FAST, ...env } });
  cleanups.push(() => server.close());
  return { server, log };
}

function poll(client: Client, params: Record<string, unknown>) {
  return client.request({ method: 'events/poll', params: { arguments: {}, maxEvents: 100, ...params } }, PollResult);
}

async function emit(client: Client, name: string, options: { count?: number; title?: string } = {}): Promise<void> {
  const result = await client.callTool({ name: 'emit', arguments: { name, ...options } });
  expect(result.isError).toBeFalsy();
}

/** Opens an events/stream request; `abort` cancels it. */
function openStream(client: Client, params: Record<string, unknown>) {
  const controller = new AbortController();
  const result = client.request({ method: 'events/stream', params: { arguments: {}, ...params } }, AnyResult, {
    signal: controller.signal,
    timeout: 600_000,
  });
  // Observed by the test when it matters; a cancelled stream rejects.
  result.catch(() => {});
  return { result, abort: () => controller.abort() };
}

function noticesOf(notices: Notice[], kind: string, subscriptionId?: unknown): Notice[] {
  return notices.filter(
    (notice) =>
      notice.method === `notifications/events/${kind}` &&
      (subscriptionId === undefined || (notice.params._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID] === subscriptionId),
  );
}

async function protocolFailure(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

// ---------------------------------------------------------------------------------------
// Standard Webhooks

/** Checks a Standard Webhooks signature (any `v1,` entry of the space-separated list), within 5 minutes of `now`. */
function validSignature(secret: string, headers: IncomingHttpHeaders, body: string, now = Date.now() / 1000): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (Math.abs(now - Number(timestamp)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const actual = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && actual.length === expected.length && timingSafeEqual(actual, expected);
  });
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver: answers challenges on /hook, the wrong challenge on /wrong, 204 to deliveries. */
async function startReceiver(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      received.push({ path, headers: req.headers, body });
      const message = JSON.parse(body) as { type?: string; challenge?: string };
      if (message.type === 'verification') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ challenge: path === '/wrong' ? 'not-the-challenge' : message.challenge }));
        return;
      }
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${address.port}`, received };
}

describe('the webhook signature check used by these tests', () => {
  it('accepts the Standard Webhooks reference vectors and rejects a tampered body', () => {
    const vector = {
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    };
    expect(validSignature('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', vector, '{"test": 2432232314}', 1614265330)).toBe(true);
    expect(validSignature('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', vector, '{"test": 2432232315}', 1614265330)).toBe(false);
    const verification = {
      'webhook-id': 'msg_verification_0123456789abcdef01234567',
      'webhook-timestamp': '1791576000',
      'webhook-signature': 'v0,abc v1,DbEEqjKQeuMsGvCPjY7HJiWBndTX3bvtUtdfy/73Qlo=',
    };
    const body = '{"type":"verification","challenge":"q0F3mH2pZ8vY1tK6cR9wN4bJ5sX7uE0d"}';
    expect(validSignature('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0', verification, body, 1791576000)).toBe(true);
    expect(validSignature('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0', verification, body, 1791576000 + 301)).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------

describe.each(ERAS)('the events fixture over stdio on %s', (era) => {
  it('declares the extension and lists its event types with their delivery modes and schemas', async () => {
    const { client } = await stdioClient(era);
    expect(client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION]: {} });
    const list = await client.request({ method: 'events/list', params: {} }, ListResult);
    expect(list.nextCursor).toBeUndefined();
    expect(list.events.map((type) => [type.name, type.delivery])).toEqual([
      ['ticket.created', ['poll', 'push', 'webhook']],
      ['build.failed', ['poll']],
      ['huge.type', ['poll', 'push']],
      ['strange.modes', ['poll', 'carrier-pigeon', 'poll']],
    ]);
    const [ticket, , huge] = list.events;
    expect(ticket).toMatchObject({
      description: expect.any(String) as string,
      inputSchema: { type: 'object', properties: { project: { type: 'string' } } },
      payloadSchema: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' } } },
    });
    expect(huge!.description).toHaveLength(100 * 1024);
  });

  it('pages through the events list when the page size is small', async () => {
    const { client } = await stdioClient(era, { FIXTURE_EVENTS_PAGE_SIZE: '3' });
    const first = await client.request({ method: 'events/list', params: {} }, ListResult);
    expect(first.events).toHaveLength(3);
    expect(first.nextCursor).toBe('page-3');
    const second = await client.request({ method: 'events/list', params: { cursor: first.nextCursor } }, ListResult);
    expect(second.events.map((type) => type.name)).toEqual(['strange.modes']);
    expect(second.nextCursor).toBeUndefined();
  });

  it('polls from now, then pages through emitted events with hasMore and an advancing cursor', async () => {
    const { client, log } = await stdioClient(era);
    await emit(client, 'ticket.created', { title: 'before' });
    const start = await poll(client, { name: 'ticket.created', cursor: null });
    expect(start).toMatchObject({ events: [], cursor: 'c1', hasMore: false, truncated: false, nextPollMs: 250 });

    await emit(client, 'ticket.created', { count: 5, title: 'hello' });
    await emit(client, 'build.failed');
    const first = await poll(client, { name: 'ticket.created', cursor: start.cursor, maxEvents: 2 });
    expect(first.events.map((event) => [event.eventId, event.cursor])).toEqual([
      ['evt-2', 'c2'],
      ['evt-3', 'c3'],
    ]);
    expect(first.events[0]).toMatchObject({ name: 'ticket.created', data: { id: 't2', title: 'hello' } });
    expect(Number.isNaN(Date.parse(first.events[0]!.timestamp))).toBe(false);
    expect(first).toMatchObject({ cursor: 'c3', hasMore: true });
    const second = await poll(client, { name: 'ticket.created', cursor: first.cursor, maxEvents: 2 });
    expect(second).toMatchObject({ cursor: 'c5', hasMore: true });
    const last = await poll(client, { name: 'ticket.created', cursor: second.cursor, maxEvents: 2 });
    expect(last.events.map((event) => event.eventId)).toEqual(['evt-6']);
    expect(last).toMatchObject({ cursor: 'c6', hasMore: false });
    const idle = await poll(client, { name: 'ticket.created', cursor: last.cursor });
    expect(idle).toMatchObject({ events: [], cursor: 'c6', hasMore: false });
    const builds = await poll(client, { name: 'build.failed', cursor: 'c0' });
    expect(builds.events.map((event) => event.eventId)).toEqual(['evt-7']);

    expect(observed(log)).toContainEqual(
      expect.objectContaining({ event: 'message', method: 'events/poll', name: 'ticket.created', cursor: 'c3', arguments: {}, maxEvents: 2 }),
    );
  });

  it('streams active, the replay, live events and heartbeats, then observes the cancellation', async () => {
    const { client, log, notices } = await stdioClient(era);
    await emit(client, 'ticket.created', { count: 2 });
    await emit(client, 'build.failed');
    const stream = openStream(client, { name: 'ticket.created', cursor: 'c0' });
    await vi.waitFor(() => expect(noticesOf(notices, 'event')).toHaveLength(2), DELIVERY);
    const [active] = noticesOf(notices, 'active');
    const subscriptionId = (active!.params._meta as Record<string, unknown>)[SUBSCRIPTION_ID];
    expect(typeof subscriptionId).toBe('number');
    expect(active!.params).toEqual({ cursor: 'c0', truncated: false, _meta: { [SUBSCRIPTION_ID]: subscriptionId } });
    expect(noticesOf(notices, 'event').map((notice) => notice.params)).toEqual([
      expect.objectContaining({ eventId: 'evt-1', name: 'ticket.created', cursor: 'c1', data: { id: 't1', title: 'Event 1' } }),
      expect.objectContaining({ eventId: 'evt-2', cursor: 'c2', _meta: { [SUBSCRIPTION_ID]: subscriptionId } }),
    ]);

    await emit(client, 'build.failed');
    await emit(client, 'ticket.created', { title: 'live' });
    await vi.waitFor(() => expect(noticesOf(notices, 'event', subscriptionId)).toHaveLength(3), DELIVERY);
    expect(noticesOf(notices, 'event')[2]!.params).toMatchObject({ eventId: 'evt-5', cursor: 'c5', data: { title: 'live' } });
    await vi.waitFor(
      () => expect(noticesOf(notices, 'heartbeat', subscriptionId).map((notice) => notice.params.cursor)).toContain('c5'),
      DELIVERY,
    );

    const changed = await client.callTool({ name: 'list-changed', arguments: {} });
    expect(changed.isError).toBeFalsy();
    await vi.waitFor(() => expect(noticesOf(notices, 'list_changed')).toEqual([{ method: 'notifications/events/list_changed', params: {} }]), DELIVERY);

    stream.abort();
    await expect(stream.result).rejects.toBeInstanceOf(SdkError);
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'stream-cancelled', requestId: subscriptionId })), DELIVERY);
    expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'message', method: 'notifications/cancelled', requestId: subscriptionId }));
    expect(observed(log)).toContainEqual(
      expect.objectContaining({ event: 'message', method: 'events/stream', id: subscriptionId, name: 'ticket.created', cursor: 'c0', arguments: {} }),
    );
    // Nothing more is pushed on the cancelled stream.
    const pushed = noticesOf(notices, 'event').length;
    await emit(client, 'ticket.created');
    await sleep(300);
    expect(noticesOf(notices, 'event')).toHaveLength(pushed);
  });

  it('keeps a burst in order, then terminates the open streams and answers them', async () => {
    const { client, log, notices } = await stdioClient(era);
    const stream = openStream(client, { name: 'ticket.created', cursor: null });
    await vi.waitFor(() => expect(noticesOf(notices, 'active')).toHaveLength(1), DELIVERY);
    const burst = await client.callTool({ name: 'burst', arguments: { name: 'ticket.created', count: 25 } });
    expect(burst.isError).toBeFalsy();
    await vi.waitFor(() => expect(noticesOf(notices, 'event')).toHaveLength(25), DELIVERY);
    expect(noticesOf(notices, 'event').map((notice) => notice.params.cursor)).toEqual(Array.from({ length: 25 }, (_, index) => `c${index + 1}`));

    await client.callTool({ name: 'terminate', arguments: {} });
    const result = await stream.result;
    expect(result._meta).toBeDefined();
    expect(noticesOf(notices, 'terminated')).toHaveLength(1);
    const [terminated] = noticesOf(notices, 'terminated');
    const subscriptionId = (noticesOf(notices, 'active')[0]!.params._meta as Record<string, unknown>)[SUBSCRIPTION_ID];
    expect(terminated!.params).toEqual({
      error: { code: -32024, message: 'Access revoked', data: { reason: 'access_revoked' } },
      _meta: { [SUBSCRIPTION_ID]: subscriptionId },
    });
    expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'stream-terminated', requestId: subscriptionId }));
  });

  it('verifies a webhook, delivers signed events, refreshes the same subscription and unsubscribes', async () => {
    const { client, log } = await stdioClient(era);
    const receiver = await startReceiver();
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const url = `${receiver.url}/hook`;
    const params = { name: 'ticket.created', arguments: { project: 'alpha' }, delivery: { mode: 'webhook', url, secret }, cursor: null };
    const before = Date.now();
    const subscribed = await client.request({ method: 'events/subscribe', params: { ...params, ttlMs: 30_000 } }, SubscribeResult);
    expect(subscribed).toMatchObject({ id: expect.stringMatching(/^sub_/) as string, cursor: 'c0', truncated: false });
    const refreshBefore = Date.parse(subscribed.refreshBefore!);
    expect(refreshBefore).toBeGreaterThanOrEqual(before + 30_000);
    expect(refreshBefore).toBeLessThan(Date.now() + 30_000 + 1000);

    expect(receiver.received).toHaveLength(1);
    const [verification] = receiver.received;
    expect(verification!.headers['webhook-id']).toMatch(/^msg_verification_[0-9a-f]{24}$/);
    expect(verification!.headers['x-mcp-subscription-id']).toBe(subscribed.id);
    expect(validSignature(secret, verification!.headers, verification!.body)).toBe(true);
    expect(JSON.parse(verification!.body)).toEqual({ type: 'verification', challenge: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/) as string });

    await emit(client, 'ticket.created', { title: 'delivered' });
    await vi.waitFor(() => expect(receiver.received).toHaveLength(2), DELIVERY);
    const delivery = receiver.received[1]!;
    expect(validSignature(secret, delivery.headers, delivery.body)).toBe(true);
    expect(validSignature(`whsec_${randomBytes(24).toString('base64')}`, delivery.headers, delivery.body)).toBe(false);
    const event = JSON.parse(delivery.body) as Record<string, unknown>;
    expect(event).toEqual({ eventId: 'evt-1', name: 'ticket.created', timestamp: expect.any(String) as string, data: { id: 't1', title: 'delivered' }, cursor: 'c1' });
    expect(delivery.headers['webhook-id']).toBe('evt-1');
    expect(delivery.headers['x-mcp-subscription-id']).toBe(subscribed.id);
    await vi.waitFor(
      () => expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'webhook-delivery', subscriptionId: subscribed.id, eventId: 'evt-1', status: 204 })),
      DELIVERY,
    );

    // The same (name, arguments, url) refreshes: same id, no new challenge; ttlMs null means no deadline.
    const refreshed = await client.request({ method: 'events/subscribe', params: { ...params, ttlMs: null } }, SubscribeResult);
    expect(refreshed).toMatchObject({ id: subscribed.id, refreshBefore: null, cursor: 'c1' });
    expect(receiver.received).toHaveLength(2);
    // Other arguments are another subscription.
    const other = await client.request({ method: 'events/subscribe', params: { ...params, arguments: { project: 'beta' } } }, SubscribeResult);
    expect(other.id).not.toBe(subscribed.id);
    await client.request({ method: 'events/unsubscribe', params: { ...params, arguments: { project: 'beta' }, delivery: { mode: 'webhook', url } } }, AnyResult);

    const unsubscribed = await client.request(
      { method: 'events/unsubscribe', params: { name: 'ticket.created', arguments: { project: 'alpha' }, delivery: { mode: 'webhook', url } } },
      AnyResult,
    );
    expect(Object.keys(unsubscribed).filter((key) => key !== '_meta')).toEqual([]);
    const count = receiver.received.length;
    await emit(client, 'ticket.created');
    await sleep(300);
    expect(receiver.received).toHaveLength(count);
    expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'webhook-unsubscribed', subscriptionId: subscribed.id, found: true }));

    // A receiver that answers the wrong challenge refuses the subscription.
    const refused = await protocolFailure(
      client.request({ method: 'events/subscribe', params: { ...params, delivery: { mode: 'webhook', url: `${receiver.url}/wrong`, secret } } }, SubscribeResult),
    );
    expect(refused.code).toBe(-32027);
    expect(refused.data).toEqual({ reason: 'challenge_failed' });

    // The secret never reaches the log.
    expect(readFileSync(log, 'utf8')).not.toContain(secret.slice('whsec_'.length));
    expect(observed(log)).toContainEqual(
      expect.objectContaining({ method: 'events/subscribe', delivery: { mode: 'webhook', url, secret: '[secret]' }, arguments: { project: 'alpha' } }),
    );
  });

  it("answers unknown, forbidden and malformed requests with the extension's error codes", async () => {
    const { client } = await stdioClient(era);
    const unknown = await protocolFailure(poll(client, { name: 'no.such.type', cursor: null }));
    expect(unknown.code).toBe(-32023);
    expect(unknown.data).toEqual({ kind: 'event' });
    const forbidden = await protocolFailure(openStream(client, { name: 'forbidden.type', cursor: null }).result);
    expect(forbidden.code).toBe(-32024);
    expect(forbidden.data).toEqual({ reason: 'access_revoked' });
    const unsupported = await protocolFailure(openStream(client, { name: 'build.failed', cursor: null }).result);
    expect(unsupported.code).toBe(-32026);
    expect((await protocolFailure(poll(client, { name: 'ticket.created', cursor: 'not-a-cursor' }))).code).toBe(-32602);
    expect((await protocolFailure(poll(client, { name: 'ticket.created', arguments: { project: 7 }, cursor: null }))).code).toBe(-32602);
    const missingCursor = client.request({ method: 'events/poll', params: { name: 'ticket.created', arguments: {} } }, PollResult);
    expect((await protocolFailure(missingCursor)).code).toBe(-32602);
  });

  it('answers the next requests of a method with the error fail-next armed, data included, then as before', async () => {
    const { client, log, notices } = await stdioClient(era);
    const data = { limit: 'polls', max: 10, retryAfterMs: 45_000 };
    await client.callTool({ name: 'fail-next', arguments: { method: 'events/poll', code: -32025, message: 'Too many polls', data, times: 2 } });
    for (let attempt = 0; attempt < 2; attempt++) {
      const failure = await protocolFailure(poll(client, { name: 'ticket.created', cursor: null }));
      expect([failure.code, failure.message, failure.data]).toEqual([-32025, 'Too many polls', data]);
    }
    expect((await poll(client, { name: 'ticket.created', cursor: null })).cursor).toMatch(/^c\d+$/);
    expect(observed(log).filter((entry) => entry.event === 'fault-injected')).toEqual([
      expect.objectContaining({ method: 'events/poll', code: -32025 }),
      expect.objectContaining({ method: 'events/poll', code: -32025 }),
    ]);
    await client.callTool({ name: 'fail-next', arguments: { method: 'events/list', data: { field: 'cursor', reason: 'bad' } } });
    expect((await protocolFailure(client.request({ method: 'events/list', params: {} }, ListResult))).data).toEqual({ field: 'cursor', reason: 'bad' });

    // terminate and stream-error send the data they are given.
    openStream(client, { name: 'ticket.created', cursor: null });
    await vi.waitFor(() => expect(noticesOf(notices, 'active')).toHaveLength(1), DELIVERY);
    await client.callTool({ name: 'stream-error', arguments: { data: { detail: ['a', 1] } } });
    await client.callTool({ name: 'terminate', arguments: { code: -32025, message: 'Over quota', data: { retryAfterMs: 9_000 } } });
    await vi.waitFor(() => expect(noticesOf(notices, 'terminated')).toHaveLength(1), DELIVERY);
    expect(noticesOf(notices, 'error')[0]!.params.error).toEqual({ code: -32603, message: 'Upstream failure', data: { detail: ['a', 1] } });
    expect(noticesOf(notices, 'terminated')[0]!.params.error).toEqual({ code: -32025, message: 'Over quota', data: { retryAfterMs: 9_000 } });
  });

  it('registers no events methods with FIXTURE_NO_EVENTS, so the client gets Method not found', async () => {
    const { client } = await stdioClient(era, { FIXTURE_NO_EVENTS: '1' });
    expect(client.getServerCapabilities()?.extensions).toBeUndefined();
    const failure = await protocolFailure(client.request({ method: 'events/list', params: {} }, ListResult));
    expect(failure.code).toBe(-32601);
  });
});

describe('the events fixture with FIXTURE_SILENT_EVENTS_LIST', () => {
  it('never answers events/list, so the client times out', async () => {
    const { client, log } = await stdioClient('2025-11-25', { FIXTURE_SILENT_EVENTS_LIST: '1' });
    const error = await client.request({ method: 'events/list', params: {} }, ListResult, { timeout: 300 }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'message', method: 'events/list' }));
  });
});

describe.each(ERAS)('the events fixture over Streamable HTTP on %s', (era) => {
  it('polls, streams on the request’s own response with live events from other requests, and sees the cancellation', async () => {
    const { server, log } = await httpFixture();
    const { client, notices } = newClient(era);
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    expect(client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION]: {} });
    expect((await client.request({ method: 'events/list', params: {} }, ListResult)).events).toHaveLength(4);

    await emit(client, 'ticket.created');
    const stream = openStream(client, { name: 'ticket.created', cursor: 'c0' });
    await vi.waitFor(() => expect(noticesOf(notices, 'event')).toHaveLength(1), DELIVERY);
    const subscriptionId = (noticesOf(notices, 'active')[0]!.params._meta as Record<string, unknown>)[SUBSCRIPTION_ID];
    await emit(client, 'ticket.created', { title: 'live' });
    await vi.waitFor(() => expect(noticesOf(notices, 'event', subscriptionId)).toHaveLength(2), DELIVERY);
    expect(noticesOf(notices, 'event')[1]!.params).toMatchObject({ eventId: 'evt-2', cursor: 'c2', data: { title: 'live' } });
    await vi.waitFor(() => expect(noticesOf(notices, 'heartbeat', subscriptionId).map((notice) => notice.params.cursor)).toContain('c2'), DELIVERY);
    const page = await poll(client, { name: 'ticket.created', cursor: 'c1' });
    expect(page.events.map((event) => event.eventId)).toEqual(['evt-2']);

    // list_changed on the open streams (an HTTP server has no other channel to a stateless client).
    await client.callTool({ name: 'list-changed', arguments: { via: 'streams' } });
    await vi.waitFor(() => expect(noticesOf(notices, 'list_changed')).toHaveLength(1), DELIVERY);

    stream.abort();
    await expect(stream.result).rejects.toBeInstanceOf(SdkError);
    await vi.waitFor(() => expect(observed(log)).toContainEqual(expect.objectContaining({ event: 'stream-cancelled', requestId: subscriptionId })), DELIVERY);
    // 2025-11-25 cancels with notifications/cancelled; 2026-07-28 closes the request's stream instead.
    const cancelled = observed(log).some((entry) => entry.method === 'notifications/cancelled' && entry.requestId === subscriptionId);
    expect(cancelled).toBe(era === '2025-11-25');
  });
});
