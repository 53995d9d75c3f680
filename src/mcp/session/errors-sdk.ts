/**
 * Classification of the errors the SDK and our transports raise, so the host can
 * decide: authorization (never a lifecycle problem, never retried), transient (retry
 * a read), disconnected (reconnect next time, never replay a call), timeout.
 */
import {
  InsufficientScopeError,
  OAuthError,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { McpAuthorizationRequired } from '../errors.js';

/** HTTP statuses worth retrying for a read (listing, handshake). */
const TRANSIENT_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/** Whether `error` says the server needs (other) credentials. */
export function isAuthorizationError(error: unknown): boolean {
  if (error instanceof McpAuthorizationRequired) return true;
  if (UnauthorizedError.isInstance(error) || InsufficientScopeError.isInstance(error) || OAuthError.isInstance(error)) {
    return true;
  }
  if (SdkHttpError.isInstance(error)) return error.status === 401 || error.status === 403;
  if (SdkError.isInstance(error)) {
    return error.code === SdkErrorCode.ClientHttpAuthentication || error.code === SdkErrorCode.ClientHttpForbidden;
  }
  return false;
}

/** Whether a failed read may succeed if tried again shortly. */
export function isTransientError(error: unknown): boolean {
  if (SdkHttpError.isInstance(error)) return error.status !== undefined && TRANSIENT_STATUSES.has(error.status);
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) return true;
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET';
}

/** Whether the session's connection is gone (the server crashed, the link dropped). */
export function isDisconnectError(error: unknown): boolean {
  if (SdkError.isInstance(error)) {
    return error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected || error.code === SdkErrorCode.SendFailed;
  }
  // fetch's own network failure (the socket closed or reset, the host unreachable), and a
  // body cut off by its socket closing (undici's "terminated"): over Streamable HTTP the SDK
  // passes them through as they are.
  if (!(error instanceof TypeError)) return false;
  return error.message === 'fetch failed' || (error.message === 'terminated' && (error.cause as { code?: unknown } | undefined)?.code === 'UND_ERR_SOCKET');
}

/** Whether the SDK gave up waiting (its abort also surfaces as a timeout). */
export function isTimeoutError(error: unknown): boolean {
  return SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout;
}

/** Whether the peer answered with a JSON-RPC error. */
export function isProtocolError(error: unknown): error is ProtocolError {
  return ProtocolError.isInstance(error);
}

/**
 * Whether a legacy Streamable HTTP server forgot the session (HTTP 404 on a request that
 * carried a session id). The SDK keeps the stale id; the host must initialise again.
 */
export function isSessionExpired(error: unknown, sessionId: string | undefined): boolean {
  return sessionId !== undefined && SdkHttpError.isInstance(error) && error.status === 404;
}
