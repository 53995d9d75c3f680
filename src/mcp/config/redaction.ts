/**
 * Scrubs configured secrets out of text that may reach an error, a log line or a
 * status: a server's stderr or an error message can echo back a token or an env value.
 */
import { REDACTED, type ResolvedServerConfig } from './config.js';

/** Shorter values are not treated as secrets: replacing "1" or "on" would garble every message. */
const MIN_SECRET_LENGTH = 4;

/** Every secret value of a server configuration. */
export function secretValues(config: ResolvedServerConfig): string[] {
  const transport = config.transport;
  const values =
    transport.type === 'stdio'
      ? Object.values(transport.env)
      : [
          ...Object.values(transport.headers).flatMap(withCredentials),
          ...(transport.bearerToken === undefined ? [] : [transport.bearerToken]),
          ...(transport.oauth?.clientSecret === undefined ? [] : [transport.oauth.clientSecret]),
          ...(transport.oauth?.flow === 'client_credentials' && transport.oauth.privateKey !== undefined ? [transport.oauth.privateKey] : []),
          // Some services take an API key in the query string.
          ...queryValues(transport.url),
        ];
  return [...values, ...config.secrets].filter((value) => value.length >= MIN_SECRET_LENGTH);
}

/** A header value, and its credentials alone when it has the form `<scheme> <credentials>` (a server may echo only those). */
function withCredentials(value: string): string[] {
  const match = /^[A-Za-z][A-Za-z0-9+.-]*\s+(\S.*)$/.exec(value.trim());
  return match === null ? [value] : [value, match[1]!];
}

function queryValues(url: string): string[] {
  try {
    return [...new URL(url).searchParams.values()];
  } catch {
    return [];
  }
}

/** `text` with every occurrence of a secret of `config` replaced by `[REDACTED]`. */
export function redactSecrets(text: string, config: ResolvedServerConfig): string {
  let result = text;
  // Longest first, so a secret containing another is replaced whole.
  for (const secret of secretValues(config).sort((a, b) => b.length - a.length)) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return result;
}

/**
 * `error` with every secret of `config` scrubbed from its message and stack, and from
 * those of its causes: an error that reaches a log line, a thrown error or
 * `util.inspect` must not carry what a server echoed back. Changes the error in place.
 */
export function redactError(error: Error, config: ResolvedServerConfig): Error {
  const seen = new Set<unknown>();
  for (let current: unknown = error; current instanceof Error && !seen.has(current); current = current.cause) {
    seen.add(current);
    current.message = redactSecrets(current.message, config);
    if (current.stack !== undefined) current.stack = redactSecrets(current.stack, config);
  }
  return error;
}
