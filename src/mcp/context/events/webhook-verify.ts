/**
 * MCP Events webhook deliveries, signed the Standard Webhooks way
 * (https://www.standardwebhooks.com/): the receiver checks the `webhook-id`,
 * `webhook-timestamp` and `webhook-signature` headers against the raw body with the
 * subscription's `whsec_` secret, then reads the body as an event or a control envelope
 * (`verification`, `terminated`, `gap`). A `verification` delivery must be answered with
 * HTTP 200 and `{"challenge":"<nonce>"}`; {@link webhookChallengeResponse} builds it.
 *
 * Only `node:crypto` is used. The secret and the key derived from it never appear in an
 * error message.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isJsonObject } from '../../../core/json.js';
import { McpFleetError } from '../../errors.js';

/** Default timestamp tolerance: 5 minutes either side of now. */
export const MCP_WEBHOOK_DEFAULT_TOLERANCE_SECONDS = 300;
/** Default bound on the size of a body that will be verified and parsed: 1 MiB. */
export const MCP_WEBHOOK_DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const SECRET_PREFIX = 'whsec_';
/** Standard base64 alphabet, padded or unpadded. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const DECIMAL = /^[0-9]{1,15}$/;

/** Header-like input: a WHATWG `Headers`, or a plain object such as node:http's `req.headers`. */
export type McpWebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** What {@link verifyWebhookDelivery} needs. */
export interface McpWebhookVerifyOptions {
  /** The `whsec_<base64 key>` secret given to `subscribeWebhook` (the prefix may be left off). */
  secret: string;
  /**
   * The request headers, names in any case: a WHATWG `Headers` instance or a plain object
   * whose values are strings or string arrays (node:http's `req.headers` fits as is).
   */
  headers: McpWebhookHeaders;
  /** The raw body exactly as received. Never a re-serialised JSON value: the signature covers the bytes. */
  body: string | Uint8Array;
  /** How far, in seconds, `webhook-timestamp` may lie before or after `now`. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time, as a `Date` or milliseconds since the epoch (like `Date.now()`). Default `Date.now()`. */
  now?: Date | number;
  /** Bodies larger than this many bytes are rejected (`bad_body`) before anything else is done with them. Default 1 MiB. */
  maxBodyBytes?: number;
}

/** The answer to a `verification` delivery: status 200 with this JSON body. */
export interface McpWebhookChallengeResponse {
  status: 200;
  headers: { 'content-type': 'application/json' };
  body: string;
}

/** Fields every verified delivery carries. */
interface McpWebhookDeliveryBase {
  /** The `webhook-id` header: the delivery's id, the same on every retry (use it to de-duplicate). */
  id: string;
  /** The `webhook-timestamp` header as a `Date`. */
  timestamp: Date;
  /** The `x-mcp-subscription-id` header, when present. */
  subscriptionId?: string;
}

/** An event a subscription delivered. */
export interface McpWebhookEvent {
  eventId: string;
  name: string;
  /** ISO 8601 time of the event, when the server gave one. */
  timestamp?: string;
  data: unknown;
  /** Where to resume from after this event; `null` when the server gave none. */
  cursor: string | null;
}

/** A verified webhook delivery. */
export type McpWebhookDelivery =
  | (McpWebhookDeliveryBase & { kind: 'event'; event: McpWebhookEvent })
  | (McpWebhookDeliveryBase & {
      kind: 'verification';
      challenge: string;
      /** What to answer: status 200 and this JSON body. */
      response: McpWebhookChallengeResponse;
    })
  | (McpWebhookDeliveryBase & { kind: 'terminated'; error: { code: number; message: string; data?: unknown } })
  | (McpWebhookDeliveryBase & {
      kind: 'gap';
      /** Where to resume from; events before it were lost. */
      cursor: string | null;
    });

/** Why a delivery was rejected. */
export type McpWebhookVerificationFailure =
  | 'missing_header'
  | 'bad_secret'
  | 'bad_timestamp'
  | 'timestamp_out_of_range'
  | 'bad_signature'
  | 'bad_body';

/**
 * A webhook delivery could not be verified or read; answer it with a 4xx status (e.g. 400 or
 * 401) and do not act on it. `reason` says what was wrong. The message never contains the
 * secret or the key.
 */
export class McpWebhookVerificationError extends McpFleetError {
  declare readonly code: 'webhook_unverified';
  readonly reason: McpWebhookVerificationFailure;

  constructor(reason: McpWebhookVerificationFailure, message: string, cause?: unknown) {
    super('webhook_unverified', message, { cause });
    this.reason = reason;
  }
}

/** The HTTP answer to a `verification` delivery carrying `challenge`: status 200, `{"challenge":"<challenge>"}`. */
export function webhookChallengeResponse(challenge: string): McpWebhookChallengeResponse {
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ challenge }) };
}

/**
 * The `webhook-signature` value (`v1,<base64 HMAC-SHA256>`) for a delivery: what a server
 * sends, and what tests use to build signed requests. `timestamp` is Unix seconds or a `Date`
 * (rounded down to the second); it must be the same value sent as `webhook-timestamp`.
 * `body` must be the exact bytes that will be sent. Throws `TypeError` on a malformed secret,
 * id or timestamp.
 */
export function signWebhookDelivery(options: { secret: string; id: string; timestamp: number | Date; body: string | Uint8Array }): string {
  const key = decodeSecret(options.secret);
  if (typeof key === 'string') throw new TypeError(key);
  if (typeof options.id !== 'string' || options.id === '') throw new TypeError('signWebhookDelivery: id must be a non-empty string.');
  const seconds = options.timestamp instanceof Date ? Math.floor(options.timestamp.getTime() / 1000) : options.timestamp;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new TypeError('signWebhookDelivery: timestamp must be a valid Date or a non-negative integer number of Unix seconds.');
  }
  return `v1,${signature(key, options.id, String(seconds), toBytes(options.body)).toString('base64')}`;
}

/**
 * Verifies a webhook delivery and reads its body. Checks, in order: the secret, the
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` headers, the timestamp against
 * `now` ± `toleranceSeconds` (default 300), the body size (default bound 1 MiB), the signature
 * (accepted if any `v1,` entry matches, so a key rotation can send several; other versions are
 * ignored), then parses the body as UTF-8 JSON.
 *
 * @throws McpWebhookVerificationError when any check fails; answer 4xx and ignore the delivery.
 * @throws TypeError when `toleranceSeconds`, `now` or `maxBodyBytes` is invalid.
 */
export function verifyWebhookDelivery(options: McpWebhookVerifyOptions): McpWebhookDelivery {
  const toleranceSeconds = options.toleranceSeconds ?? MCP_WEBHOOK_DEFAULT_TOLERANCE_SECONDS;
  if (typeof toleranceSeconds !== 'number' || !Number.isFinite(toleranceSeconds) || toleranceSeconds < 0) {
    throw new TypeError('verifyWebhookDelivery: toleranceSeconds must be a finite, non-negative number of seconds.');
  }
  const maxBodyBytes = options.maxBodyBytes ?? MCP_WEBHOOK_DEFAULT_MAX_BODY_BYTES;
  if (typeof maxBodyBytes !== 'number' || !Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new TypeError('verifyWebhookDelivery: maxBodyBytes must be a non-negative integer.');
  }
  const nowMs = options.now === undefined ? Date.now() : options.now instanceof Date ? options.now.getTime() : options.now;
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs)) {
    throw new TypeError('verifyWebhookDelivery: now must be a valid Date or a number of milliseconds since the epoch.');
  }

  const key = decodeSecret(options.secret);
  if (typeof key === 'string') throw new McpWebhookVerificationError('bad_secret', key);

  const id = singleHeader(options.headers, 'webhook-id');
  const timestampText = singleHeader(options.headers, 'webhook-timestamp');
  const signatureValues = headerValues(options.headers, 'webhook-signature');
  if (signatureValues.length === 0 || signatureValues.every((value) => value.trim() === '')) throw missingHeader('webhook-signature');

  if (!DECIMAL.test(timestampText)) {
    throw new McpWebhookVerificationError(
      'bad_timestamp',
      'The webhook-timestamp header is not a whole number of Unix seconds in decimal; the sender must put the signing time there.',
    );
  }
  const timestampSeconds = Number(timestampText);
  const skew = nowMs / 1000 - timestampSeconds;
  if (skew > toleranceSeconds || -skew > toleranceSeconds) {
    const direction = skew > 0 ? `${Math.round(skew)} s in the past` : `${Math.round(-skew)} s in the future`;
    throw new McpWebhookVerificationError(
      'timestamp_out_of_range',
      `The webhook-timestamp header is ${direction}, beyond the ${toleranceSeconds} s tolerance; ` +
        'the delivery may be a replay, or the sender and receiver clocks disagree (check them, or raise toleranceSeconds).',
    );
  }

  const body = toBytes(options.body);
  if (body.byteLength > maxBodyBytes) {
    throw new McpWebhookVerificationError(
      'bad_body',
      `The webhook body is ${body.byteLength} bytes, more than the ${maxBodyBytes} byte limit; raise maxBodyBytes if such deliveries are expected.`,
    );
  }

  const candidates = signatureCandidates(signatureValues);
  if (candidates.length === 0) {
    throw new McpWebhookVerificationError(
      'bad_signature',
      'The webhook-signature header has no "v1,<base64>" entry; Standard Webhooks signatures are space-separated "v1,<base64 HMAC-SHA256>" entries.',
    );
  }
  const expected = signature(key, id, timestampText, body);
  let matched = false;
  for (const candidate of candidates) {
    // Every candidate is compared, in constant time, so the timing says nothing about which one matched.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  if (!matched) {
    throw new McpWebhookVerificationError(
      'bad_signature',
      'The webhook-signature header matches no signature computed with this secret; check that the secret is the one given to ' +
        'subscribeWebhook and that the body is the raw bytes received (not re-serialised JSON).',
    );
  }

  const base: McpWebhookDeliveryBase = { id, timestamp: new Date(timestampSeconds * 1000) };
  const subscriptionId = optionalHeader(options.headers, 'x-mcp-subscription-id');
  if (subscriptionId !== undefined) base.subscriptionId = subscriptionId;
  return readBody(body, base);
}

/** The key of a `whsec_` secret, or why there is none (a message that does not repeat the secret). */
function decodeSecret(secret: unknown): Buffer | string {
  if (typeof secret !== 'string' || secret === '') {
    return 'The webhook secret is missing; pass the "whsec_..." secret given to subscribeWebhook.';
  }
  const text = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const unpadded = text.replace(/=+$/, '');
  const padded = text.length !== unpadded.length;
  if (!BASE64.test(text) || unpadded.length % 4 === 1 || (padded && text.length % 4 !== 0) || unpadded === '') {
    return 'The webhook secret is not "whsec_" followed by a base64 key (standard alphabet, padded or not); pass the secret given to subscribeWebhook unchanged.';
  }
  return Buffer.from(unpadded, 'base64');
}

function signature(key: Buffer, id: string, timestamp: string, body: Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
}

function toBytes(body: string | Uint8Array): Uint8Array {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return body;
  throw new TypeError('The webhook body must be the raw body as a string, Buffer or Uint8Array.');
}

/** The decoded `v1` signatures of a `webhook-signature` header; other versions and malformed entries are skipped. */
function signatureCandidates(values: readonly string[]): Buffer[] {
  const candidates: Buffer[] = [];
  for (const value of values) {
    for (const raw of value.split(/\s+/)) {
      // A WHATWG Headers joins repeated headers with ", "; base64 never holds a comma, so a trailing one is a separator.
      const entry = raw.endsWith(',') && raw.indexOf(',') !== raw.length - 1 ? raw.slice(0, -1) : raw;
      const comma = entry.indexOf(',');
      if (comma < 0 || entry.slice(0, comma) !== 'v1') continue;
      const encoded = entry.slice(comma + 1);
      if (encoded === '' || !BASE64.test(encoded)) continue;
      candidates.push(Buffer.from(encoded, 'base64'));
    }
  }
  return candidates;
}

/** Every value of a header, whatever the case of its name. */
function headerValues(headers: McpWebhookHeaders, name: string): string[] {
  if (isHeadersInstance(headers)) {
    const value = headers.get(name);
    return value === null ? [] : [value];
  }
  const values: string[] = [];
  if (headers === null || typeof headers !== 'object') return values;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.filter((item): item is string => typeof item === 'string'));
  }
  return values;
}

function isHeadersInstance(headers: McpWebhookHeaders): headers is Headers {
  return (
    (typeof Headers === 'function' && headers instanceof Headers) ||
    (typeof headers === 'object' && headers !== null && typeof (headers as { get?: unknown }).get === 'function')
  );
}

/** A header that may be absent; repeated identical values count as one. */
function optionalHeader(headers: McpWebhookHeaders, name: string): string | undefined {
  const values = [...new Set(headerValues(headers, name).map((value) => value.trim()))].filter((value) => value !== '');
  if (values.length > 1) {
    throw new McpWebhookVerificationError('missing_header', `The ${name} header appears more than once with different values; send it once.`);
  }
  return values[0];
}

function singleHeader(headers: McpWebhookHeaders, name: string): string {
  const value = optionalHeader(headers, name);
  if (value === undefined) throw missingHeader(name);
  return value;
}

function missingHeader(name: string): McpWebhookVerificationError {
  return new McpWebhookVerificationError(
    'missing_header',
    `The ${name} header is missing or empty; a signed webhook delivery carries webhook-id, webhook-timestamp and webhook-signature.`,
  );
}

function badBody(message: string, cause?: unknown): McpWebhookVerificationError {
  return new McpWebhookVerificationError('bad_body', message, cause);
}

/** Parses a verified body into a delivery. */
function readBody(bytes: Uint8Array, base: McpWebhookDeliveryBase): McpWebhookDelivery {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    throw badBody('The webhook body is not valid UTF-8; the signature matched, so the sender signed malformed bytes.', error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw badBody('The webhook body is not valid JSON; the signature matched, so the sender signed a malformed body.', error);
  }
  if (!isJsonObject(parsed)) throw badBody('The webhook body is JSON but not an object; an MCP Events delivery is an event or a control envelope object.');

  const type = parsed.type;
  if (typeof type === 'string') {
    switch (type) {
      case 'verification': {
        const challenge = parsed.challenge;
        if (typeof challenge !== 'string' || challenge === '') {
          throw badBody('The verification envelope has no "challenge" string; it cannot be answered.');
        }
        return { ...base, kind: 'verification', challenge, response: webhookChallengeResponse(challenge) };
      }
      case 'terminated': {
        const error = parsed.error;
        if (!isJsonObject(error) || typeof error.code !== 'number' || !Number.isFinite(error.code) || typeof error.message !== 'string') {
          throw badBody('The terminated envelope has no "error" object with a numeric "code" and a string "message".');
        }
        const reported: { code: number; message: string; data?: unknown } = { code: error.code, message: error.message };
        if (error.data !== undefined) reported.data = error.data;
        return { ...base, kind: 'terminated', error: reported };
      }
      case 'gap':
        return { ...base, kind: 'gap', cursor: cursorOf(parsed.cursor, 'gap envelope') };
      default:
        throw badBody(
          `The webhook body is a control envelope of unknown type ${JSON.stringify(type.slice(0, 64))}; known types are verification, terminated and gap.`,
        );
    }
  }

  const { eventId, name, timestamp, data, cursor } = parsed;
  if (typeof eventId !== 'string' || eventId === '' || typeof name !== 'string' || name === '') {
    throw badBody('The webhook body is neither a control envelope (with a string "type") nor an event (with string "eventId" and "name").');
  }
  if (timestamp !== undefined && typeof timestamp !== 'string') throw badBody('The event\'s "timestamp" is not an ISO 8601 string.');
  const event: McpWebhookEvent = { eventId, name, data, cursor: cursorOf(cursor, 'event') };
  if (timestamp !== undefined) event.timestamp = timestamp;
  return { ...base, kind: 'event', event };
}

function cursorOf(cursor: unknown, where: string): string | null {
  if (cursor === undefined || cursor === null) return null;
  if (typeof cursor !== 'string') throw badBody(`The ${where}'s "cursor" is neither a string nor null.`);
  return cursor;
}
