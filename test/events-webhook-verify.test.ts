/**
 * Unit tests of MCP Events webhook verification (Standard Webhooks signatures), the body
 * envelopes and the challenge answer, plus a round trip through a real node:http receiver.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { McpFleetError } from '../src/mcp/errors.js';
import {
  McpWebhookVerificationError,
  signWebhookDelivery,
  verifyWebhookDelivery,
  webhookChallengeResponse,
  type McpWebhookDelivery,
  type McpWebhookVerificationFailure,
  type McpWebhookVerifyOptions,
} from '../src/mcp/context/events/webhook-verify.js';

const V1 = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  key: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const V2 = {
  secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0',
  id: 'msg_verification_0123456789abcdef01234567',
  timestamp: 1791576000,
  body: '{"type":"verification","challenge":"q0F3mH2pZ8vY1tK6cR9wN4bJ5sX7uE0d"}',
  signature: 'v1,DbEEqjKQeuMsGvCPjY7HJiWBndTX3bvtUtdfy/73Qlo=',
};

const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0';
const OTHER_SECRET = `whsec_${Buffer.from('a-completely-different-key!').toString('base64')}`;
const TS = 1_800_000_000;
const NOW_MS = TS * 1000;

/** Options for a delivery signed with `SECRET` at `TS`, verified at `TS`. */
function signed(body: string | Uint8Array, extra: { id?: string; headers?: Record<string, string> } = {}): McpWebhookVerifyOptions {
  const id = extra.id ?? 'msg_1';
  return {
    secret: SECRET,
    body,
    now: NOW_MS,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(TS),
      'webhook-signature': signWebhookDelivery({ secret: SECRET, id, timestamp: TS, body }),
      ...extra.headers,
    },
  };
}

function failure(options: McpWebhookVerifyOptions): McpWebhookVerificationError {
  try {
    verifyWebhookDelivery(options);
  } catch (error) {
    expect(error).toBeInstanceOf(McpWebhookVerificationError);
    return error as McpWebhookVerificationError;
  }
  throw new Error('expected verifyWebhookDelivery to throw');
}

function expectFailure(options: McpWebhookVerifyOptions, reason: McpWebhookVerificationFailure): McpWebhookVerificationError {
  const error = failure(options);
  expect(error.reason).toBe(reason);
  expect(error.code).toBe('webhook_unverified');
  return error;
}

function causeText(error: Error): string {
  return error.cause instanceof Error ? `${error.cause.message}\n${String(error.cause.stack)}` : '';
}

const EVENT_BODY = JSON.stringify({ eventId: 'evt_1', name: 'issue.opened', timestamp: '2027-01-15T08:00:00Z', data: { n: 1 }, cursor: 'c-1' });

describe('Standard Webhooks test vectors', () => {
  it('the Standard Webhooks vector signs and verifies exactly', () => {
    expect(signWebhookDelivery({ secret: V1.secret, id: V1.id, timestamp: V1.timestamp, body: V1.body })).toBe(V1.signature);
    // The secret without its prefix is the same key.
    expect(signWebhookDelivery({ secret: V1.key, id: V1.id, timestamp: V1.timestamp, body: V1.body })).toBe(V1.signature);
    // The vector's body is an object without a type or eventId, so it verifies and then fails to read as a delivery.
    const error = expectFailure(
      { secret: V1.secret, body: V1.body, now: V1.timestamp * 1000, headers: { 'webhook-id': V1.id, 'webhook-timestamp': String(V1.timestamp), 'webhook-signature': V1.signature } },
      'bad_body',
    );
    expect(error.message).toContain('eventId');
  });

  it('the verification vector verifies and yields the challenge answer', () => {
    expect(signWebhookDelivery({ secret: V2.secret, id: V2.id, timestamp: new Date(V2.timestamp * 1000), body: V2.body })).toBe(V2.signature);
    const delivery = verifyWebhookDelivery({
      secret: V2.secret,
      body: V2.body,
      now: new Date(V2.timestamp * 1000),
      headers: { 'webhook-id': V2.id, 'webhook-timestamp': String(V2.timestamp), 'webhook-signature': V2.signature },
    });
    expect(delivery).toEqual({
      kind: 'verification',
      id: V2.id,
      timestamp: new Date(V2.timestamp * 1000),
      challenge: 'q0F3mH2pZ8vY1tK6cR9wN4bJ5sX7uE0d',
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"challenge":"q0F3mH2pZ8vY1tK6cR9wN4bJ5sX7uE0d"}' },
    });
  });

  it('an unpadded base64 secret is the same key as the padded one', () => {
    const key = Buffer.from('seventeen byte ky').toString('base64');
    expect(key.endsWith('=')).toBe(true);
    const body = '{}';
    expect(signWebhookDelivery({ secret: `whsec_${key}`, id: 'm', timestamp: 1, body })).toBe(
      signWebhookDelivery({ secret: `whsec_${key.replace(/=+$/, '')}`, id: 'm', timestamp: 1, body }),
    );
  });
});

describe('verifyWebhookDelivery signatures', () => {
  it('accepts a header with several signatures when a later one matches (key rotation)', () => {
    const options = signed(EVENT_BODY);
    const good = signWebhookDelivery({ secret: SECRET, id: 'msg_1', timestamp: TS, body: EVENT_BODY });
    const old = signWebhookDelivery({ secret: OTHER_SECRET, id: 'msg_1', timestamp: TS, body: EVENT_BODY });
    options.headers = { ...options.headers, 'webhook-signature': `${old} v1a,c29tZXRoaW5nIGVsc2U= ${good}` };
    expect(verifyWebhookDelivery(options).kind).toBe('event');
  });

  it('ignores other signature versions and rejects a header with only those', () => {
    const options = signed(EVENT_BODY);
    const good = signWebhookDelivery({ secret: SECRET, id: 'msg_1', timestamp: TS, body: EVENT_BODY });
    options.headers = { ...options.headers, 'webhook-signature': good.replace(/^v1,/, 'v1a,') };
    expect(expectFailure(options, 'bad_signature').message).toContain('no "v1,<base64>" entry');
  });

  it('rejects a delivery signed with another secret', () => {
    const options = signed(EVENT_BODY);
    options.secret = OTHER_SECRET;
    expect(expectFailure(options, 'bad_signature').message).toContain('matches no signature computed with this secret');
  });

  it('rejects a tampered body', () => {
    const options = signed(EVENT_BODY);
    options.body = EVENT_BODY.replace('"n":1', '"n":2');
    expectFailure(options, 'bad_signature');
  });

  it('rejects a body that was parsed and re-serialised', () => {
    const options = { secret: V1.secret, now: V1.timestamp * 1000, headers: { 'webhook-id': V1.id, 'webhook-timestamp': String(V1.timestamp), 'webhook-signature': V1.signature } };
    expectFailure({ ...options, body: JSON.stringify(JSON.parse(V1.body)) }, 'bad_signature');
  });

  it('rejects a tampered webhook-id', () => {
    const options = signed(EVENT_BODY);
    options.headers = { ...options.headers, 'webhook-id': 'msg_2' };
    expectFailure(options, 'bad_signature');
  });

  it('rejects a tampered webhook-timestamp even within the tolerance', () => {
    const options = signed(EVENT_BODY);
    options.headers = { ...options.headers, 'webhook-timestamp': String(TS + 1) };
    expectFailure(options, 'bad_signature');
  });

  it('rejects a signature of the wrong length or malformed base64', () => {
    for (const value of ['v1,AAAA', 'v1,not base64!', 'v1,', 'v1', 'garbage']) {
      const options = signed(EVENT_BODY);
      options.headers = { ...options.headers, 'webhook-signature': value };
      expectFailure(options, 'bad_signature');
    }
  });
});

describe('verifyWebhookDelivery timestamps', () => {
  it('rejects a timestamp older than the default five minutes', () => {
    const error = expectFailure({ ...signed(EVENT_BODY), now: NOW_MS + 301_000 }, 'timestamp_out_of_range');
    expect(error.message).toContain('301 s in the past');
    expect(error.message).toContain('300 s tolerance');
  });

  it('rejects a timestamp newer than the default five minutes', () => {
    const error = expectFailure({ ...signed(EVENT_BODY), now: NOW_MS - 301_000 }, 'timestamp_out_of_range');
    expect(error.message).toContain('301 s in the future');
  });

  it('accepts a timestamp exactly at the tolerance on either side', () => {
    expect(verifyWebhookDelivery({ ...signed(EVENT_BODY), now: NOW_MS + 300_000 }).kind).toBe('event');
    expect(verifyWebhookDelivery({ ...signed(EVENT_BODY), now: NOW_MS - 300_000 }).kind).toBe('event');
  });

  it('honours toleranceSeconds and a Date for now', () => {
    expectFailure({ ...signed(EVENT_BODY), now: new Date(NOW_MS + 11_000), toleranceSeconds: 10 }, 'timestamp_out_of_range');
    expectFailure({ ...signed(EVENT_BODY), now: new Date(NOW_MS - 11_000), toleranceSeconds: 10 }, 'timestamp_out_of_range');
    expect(verifyWebhookDelivery({ ...signed(EVENT_BODY), now: new Date(NOW_MS + 3_600_000), toleranceSeconds: 3600 }).kind).toBe('event');
  });

  it('compares with the real clock when now is not given', () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const body = EVENT_BODY;
    const headers = { 'webhook-id': 'm', 'webhook-timestamp': String(nowSeconds), 'webhook-signature': signWebhookDelivery({ secret: SECRET, id: 'm', timestamp: nowSeconds, body }) };
    expect(verifyWebhookDelivery({ secret: SECRET, body, headers }).kind).toBe('event');
    const stale = nowSeconds - 3600;
    const staleHeaders = { 'webhook-id': 'm', 'webhook-timestamp': String(stale), 'webhook-signature': signWebhookDelivery({ secret: SECRET, id: 'm', timestamp: stale, body }) };
    expectFailure({ secret: SECRET, body, headers: staleHeaders }, 'timestamp_out_of_range');
  });

  it('rejects a timestamp that is not decimal Unix seconds', () => {
    for (const value of ['1.8e9', '-1800000000', '2027-01-15T08:00:00Z', '0x6b49d200', '18000000000000000000']) {
      const options = signed(EVENT_BODY);
      options.headers = { ...options.headers, 'webhook-timestamp': value };
      expectFailure(options, 'bad_timestamp');
    }
  });

  it('throws a TypeError for an invalid toleranceSeconds or now', () => {
    expect(() => verifyWebhookDelivery({ ...signed(EVENT_BODY), toleranceSeconds: -1 })).toThrow(TypeError);
    expect(() => verifyWebhookDelivery({ ...signed(EVENT_BODY), toleranceSeconds: Number.NaN })).toThrow(TypeError);
    expect(() => verifyWebhookDelivery({ ...signed(EVENT_BODY), now: new Date(Number.NaN) })).toThrow(TypeError);
  });
});

describe('verifyWebhookDelivery headers', () => {
  it('rejects each missing or empty header, naming it', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
      const options = signed(EVENT_BODY);
      const headers = { ...(options.headers as Record<string, string>) };
      delete headers[name];
      expect(expectFailure({ ...options, headers }, 'missing_header').message).toContain(`The ${name} header is missing`);
      expect(expectFailure({ ...options, headers: { ...headers, [name]: '' } }, 'missing_header').message).toContain(name);
    }
    expectFailure({ ...signed(EVENT_BODY), headers: {} }, 'missing_header');
  });

  it('reads header names in any case from a plain object', () => {
    const options = signed(EVENT_BODY);
    const source = options.headers as Record<string, string>;
    const headers = {
      'Webhook-Id': source['webhook-id'],
      'WEBHOOK-TIMESTAMP': source['webhook-timestamp'],
      'webhook-Signature': source['webhook-signature'],
      'X-MCP-Subscription-Id': 'sub-7',
    };
    const delivery = verifyWebhookDelivery({ ...options, headers });
    expect(delivery.kind).toBe('event');
    expect(delivery.subscriptionId).toBe('sub-7');
  });

  it('reads string[] header values, signatures from several entries', () => {
    const options = signed(EVENT_BODY);
    const source = options.headers as Record<string, string>;
    const old = signWebhookDelivery({ secret: OTHER_SECRET, id: 'msg_1', timestamp: TS, body: EVENT_BODY });
    const headers = {
      'webhook-id': [source['webhook-id'] ?? ''],
      'webhook-timestamp': [source['webhook-timestamp'] ?? ''],
      'webhook-signature': [old, source['webhook-signature'] ?? ''],
      unrelated: undefined,
    };
    expect(verifyWebhookDelivery({ ...options, headers }).kind).toBe('event');
  });

  it('rejects a webhook-id sent twice with different values', () => {
    const options = signed(EVENT_BODY);
    expectFailure({ ...options, headers: { ...options.headers, 'Webhook-Id': 'msg_other' } }, 'missing_header');
  });

  it('reads a WHATWG Headers instance, including repeated signature headers', () => {
    const options = signed(EVENT_BODY);
    const source = options.headers as Record<string, string>;
    const headers = new Headers();
    headers.set('Webhook-Id', source['webhook-id'] ?? '');
    headers.set('WEBHOOK-timestamp', source['webhook-timestamp'] ?? '');
    headers.append('Webhook-Signature', signWebhookDelivery({ secret: OTHER_SECRET, id: 'msg_1', timestamp: TS, body: EVENT_BODY }));
    headers.append('Webhook-Signature', source['webhook-signature'] ?? '');
    headers.set('X-Mcp-Subscription-Id', 'sub-9');
    const delivery = verifyWebhookDelivery({ ...options, headers });
    expect(delivery.kind).toBe('event');
    expect(delivery.subscriptionId).toBe('sub-9');
    headers.delete('webhook-id');
    expectFailure({ ...options, headers }, 'missing_header');
  });

  it('leaves subscriptionId out when the header is absent', () => {
    expect(verifyWebhookDelivery(signed(EVENT_BODY))).not.toHaveProperty('subscriptionId');
  });
});

describe('verifyWebhookDelivery bodies', () => {
  it('verifies a Buffer body and a Uint8Array view into a larger buffer', () => {
    const text = JSON.stringify({ eventId: 'evt_ü', name: 'note', data: { text: 'café ☕' }, cursor: null });
    const buffer = Buffer.from(text, 'utf8');
    const fromBuffer = verifyWebhookDelivery(signed(buffer));
    expect(fromBuffer.kind === 'event' && fromBuffer.event.data).toEqual({ text: 'café ☕' });

    const backing = new Uint8Array(buffer.byteLength + 10);
    backing.set(buffer, 5);
    const view = new Uint8Array(backing.buffer, 5, buffer.byteLength);
    const fromView = verifyWebhookDelivery(signed(view));
    expect(fromView.kind === 'event' && fromView.event.eventId).toBe('evt_ü');
    // Signed as a string, verified as its UTF-8 bytes: the same signature.
    const options = signed(text);
    expect(verifyWebhookDelivery({ ...options, body: new Uint8Array(buffer) }).kind).toBe('event');
  });

  it('parses an event', () => {
    expect(verifyWebhookDelivery(signed(EVENT_BODY))).toEqual({
      kind: 'event',
      id: 'msg_1',
      timestamp: new Date(NOW_MS),
      event: { eventId: 'evt_1', name: 'issue.opened', timestamp: '2027-01-15T08:00:00Z', data: { n: 1 }, cursor: 'c-1' },
    });
    const minimal = verifyWebhookDelivery(signed('{"eventId":"e","name":"n","data":null}'));
    expect(minimal.kind === 'event' && minimal.event).toEqual({ eventId: 'e', name: 'n', data: null, cursor: null });
  });

  it('parses a verification envelope with its answer', () => {
    const delivery = verifyWebhookDelivery(signed('{"type":"verification","challenge":"nonce-1"}'));
    expect(delivery.kind).toBe('verification');
    if (delivery.kind !== 'verification') return;
    expect(delivery.challenge).toBe('nonce-1');
    expect(delivery.response).toEqual(webhookChallengeResponse('nonce-1'));
  });

  it('parses a terminated envelope, with and without data', () => {
    const withData = verifyWebhookDelivery(signed('{"type":"terminated","error":{"code":-32012,"message":"gone","data":{"reason":"revoked"}}}'));
    expect(withData.kind === 'terminated' && withData.error).toEqual({ code: -32012, message: 'gone', data: { reason: 'revoked' } });
    const without = verifyWebhookDelivery(signed('{"type":"terminated","error":{"code":-32603,"message":"internal"}}'));
    expect(without.kind === 'terminated' && without.error).toEqual({ code: -32603, message: 'internal' });
  });

  it('parses a gap envelope, with a cursor or null', () => {
    const gap = verifyWebhookDelivery(signed('{"type":"gap","cursor":"c-42"}'));
    expect(gap).toMatchObject({ kind: 'gap', cursor: 'c-42' });
    expect(verifyWebhookDelivery(signed('{"type":"gap","cursor":null}'))).toMatchObject({ kind: 'gap', cursor: null });
  });

  it('rejects malformed bodies as bad_body', () => {
    const bodies = [
      'not json',
      '[1,2]',
      'null',
      '"text"',
      '{"name":"n","data":1}',
      '{"eventId":"e","data":1}',
      '{"eventId":"","name":"n"}',
      '{"eventId":"e","name":"n","cursor":7}',
      '{"eventId":"e","name":"n","timestamp":12}',
      '{"type":"verification"}',
      '{"type":"verification","challenge":5}',
      '{"type":"terminated"}',
      '{"type":"terminated","error":{"code":"x","message":"m"}}',
      '{"type":"terminated","error":{"code":1}}',
      '{"type":"gap","cursor":{}}',
      '{"type":"surprise"}',
    ];
    for (const body of bodies) expectFailure(signed(body), 'bad_body');
    expectFailure(signed(Buffer.from([0x7b, 0xff, 0x7d])), 'bad_body');
  });

  it('rejects a body over the size bound before checking its signature', () => {
    const big = JSON.stringify({ eventId: 'e', name: 'n', data: 'x'.repeat(1024 * 1024) });
    const options = signed(big);
    expect(expectFailure(options, 'bad_body').message).toContain('byte limit');
    expectFailure({ ...options, headers: { ...options.headers, 'webhook-signature': 'v1,AAAA' } }, 'bad_body');
    expect(verifyWebhookDelivery({ ...options, maxBodyBytes: 2 * 1024 * 1024 }).kind).toBe('event');
    expectFailure({ ...signed(EVENT_BODY), maxBodyBytes: 10 }, 'bad_body');
  });
});

describe('webhookChallengeResponse', () => {
  it('answers status 200 with the challenge as JSON', () => {
    const response = webhookChallengeResponse('q0F3mH2pZ8vY1tK6cR9wN4bJ5sX7uE0d');
    expect(response).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"challenge":"q0F3mH2pZ8vY1tK6cR9wN4bJ5sX7uE0d"}' });
    expect(JSON.parse(webhookChallengeResponse('a"b\\c').body)).toEqual({ challenge: 'a"b\\c' });
  });
});

describe('McpWebhookVerificationError', () => {
  it('is an McpFleetError with a stable code and reason', () => {
    const error = expectFailure({ ...signed(EVENT_BODY), secret: OTHER_SECRET }, 'bad_signature');
    expect(error).toBeInstanceOf(McpFleetError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('McpWebhookVerificationError');
    expect(error.serverId).toBeUndefined();
  });

  it('rejects a malformed secret as bad_secret', () => {
    for (const secret of ['', 'whsec_', 'whsec_not*base64', 'whsec_abcde', 'whsec_ab=c', 'whsec_abc==']) {
      expectFailure({ ...signed(EVENT_BODY), secret }, 'bad_secret');
    }
    expect(() => signWebhookDelivery({ secret: 'whsec_%%%', id: 'm', timestamp: 1, body: '' })).toThrow(TypeError);
  });

  it('never puts the secret or the derived key in a message', () => {
    const keyBytes = Buffer.from('super-secret-key-material-0123456789');
    const secret = `whsec_${keyBytes.toString('base64')}`;
    const forms = [secret, keyBytes.toString('base64'), keyBytes.toString('base64').replace(/=+$/, ''), keyBytes.toString('hex'), keyBytes.toString('utf8')];
    const good = signed(EVENT_BODY);
    const headers = good.headers as Record<string, string>;
    const attempts: McpWebhookVerifyOptions[] = [
      { ...good, secret },
      { ...good, secret: `${secret}*` },
      { ...good, secret: secret.slice(0, -1) + '!' },
      { ...good, secret: keyBytes.toString('utf8') },
      { ...good, secret, headers: { ...headers, 'webhook-id': '' } },
      { ...good, secret, headers: { ...headers, 'webhook-timestamp': 'soon' } },
      { ...good, secret, now: 0 },
      { ...good, secret, maxBodyBytes: 1 },
      { ...signed('{"type":"nope"}'), secret },
    ];
    const messages: string[] = [];
    for (const options of attempts) {
      const error = failure(options);
      messages.push(error.message, String(error.stack), causeText(error));
    }
    // A body that verifies with this secret but is malformed.
    const body = 'not json';
    const bad = { 'webhook-id': 'm', 'webhook-timestamp': String(TS), 'webhook-signature': signWebhookDelivery({ secret, id: 'm', timestamp: TS, body }) };
    const parseError = failure({ secret, body, now: NOW_MS, headers: bad });
    expect(parseError.reason).toBe('bad_body');
    messages.push(parseError.message, String(parseError.stack), causeText(parseError));
    expect(causeText(parseError)).not.toBe('');
    try {
      signWebhookDelivery({ secret: `${secret}*`, id: 'm', timestamp: 1, body: '' });
    } catch (error) {
      messages.push((error as Error).message);
    }
    for (const message of messages) {
      for (const form of forms) expect(message).not.toContain(form);
    }
  });
});

describe('a real webhook receiver', () => {
  /** A node:http receiver that verifies the raw request bytes and answers as the protocol says. */
  async function withReceiver(
    run: (url: string, received: McpWebhookDelivery[]) => Promise<void>,
  ): Promise<void> {
    const received: McpWebhookDelivery[] = [];
    const handle = (request: IncomingMessage, response: ServerResponse, body: Buffer): void => {
      try {
        const delivery = verifyWebhookDelivery({ secret: SECRET, headers: request.headers, body });
        received.push(delivery);
        if (delivery.kind === 'verification') {
          response.writeHead(delivery.response.status, delivery.response.headers).end(delivery.response.body);
        } else {
          response.writeHead(204).end();
        }
      } catch (error) {
        const reason = error instanceof McpWebhookVerificationError ? error.reason : 'internal';
        response.writeHead(error instanceof McpWebhookVerificationError ? 401 : 500, { 'content-type': 'text/plain' }).end(reason);
      }
    };
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => handle(request, response, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      await run(`http://127.0.0.1:${port}/hook`, received);
    } finally {
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    }
  }

  function post(url: string, body: string, id: string, options: { signWith?: string; subscriptionId?: string } = {}): Promise<Response> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhookDelivery({ secret: options.signWith ?? SECRET, id, timestamp, body }),
    };
    if (options.subscriptionId !== undefined) headers['x-mcp-subscription-id'] = options.subscriptionId;
    return fetch(url, { method: 'POST', headers, body });
  }

  it('answers a signed verification POST with the challenge and accepts signed events', async () => {
    await withReceiver(async (url, received) => {
      const challenge = await post(url, '{"type":"verification","challenge":"round-trip-nonce"}', 'msg_v', { subscriptionId: 'sub-1' });
      expect(challenge.status).toBe(200);
      expect(challenge.headers.get('content-type')).toBe('application/json');
      expect(await challenge.text()).toBe('{"challenge":"round-trip-nonce"}');

      // Non-ASCII and irregular whitespace: only the raw bytes carry the signature.
      const eventBody = '{ "eventId": "evt_é", "name": "doc.changed",\n  "data": {"title": "naïve ☕"}, "cursor": "c-9" }';
      const event = await post(url, eventBody, 'msg_e', { subscriptionId: 'sub-1' });
      expect(event.status).toBe(204);

      expect(received).toHaveLength(2);
      expect(received[0]).toMatchObject({ kind: 'verification', id: 'msg_v', subscriptionId: 'sub-1', challenge: 'round-trip-nonce' });
      expect(received[1]).toMatchObject({
        kind: 'event',
        id: 'msg_e',
        subscriptionId: 'sub-1',
        event: { eventId: 'evt_é', name: 'doc.changed', data: { title: 'naïve ☕' }, cursor: 'c-9' },
      });
    });
  });

  it('refuses a POST signed with another secret', async () => {
    await withReceiver(async (url, received) => {
      const response = await post(url, EVENT_BODY, 'msg_x', { signWith: OTHER_SECRET });
      expect(response.status).toBe(401);
      expect(await response.text()).toBe('bad_signature');
      expect(received).toHaveLength(0);
    });
  });
});
