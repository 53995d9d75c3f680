/**
 * The `data` of an Events error a server sent, made fit to keep and show: bounded (4 KiB
 * serialised, nested no deeper than JSON budgets allow), with every string in it (object
 * keys included) redacted as the message is. The two hints the provider reads itself,
 * `reason` and `retryAfterMs`, are taken from the data as sent, so they survive a drop.
 */
import { jsonBytes, KiB, scanJson } from '../../../core/budget.js';
import { isJsonObject } from '../../../core/json.js';

/** A JSON value: what a JSON-RPC `error.data` can be. */
export type McpEventErrorData = string | number | boolean | null | McpEventErrorData[] | { [key: string]: McpEventErrorData };

/** Scrubs secrets out of text a server sent (the server's configured secrets, a webhook's secret). */
export type Redact = (text: string) => string;

/** Largest `error.data` kept, serialised: room for any structured reason, too little to carry a payload. */
export const MAX_ERROR_DATA_BYTES = 4 * KiB;
const MAX_REASON = 256;

/** What an error's `data` leaves on the `McpEventError`. */
export interface KeptErrorData {
  /** The data, redacted; `undefined` when there was none or it was dropped. */
  data: McpEventErrorData | undefined;
  /** Why data the server sent was dropped (a note for the message), when it was. */
  dropped: string | undefined;
  /** `data.reason` (or `data.kind`), redacted, then cut to 256 characters. */
  reason: string | undefined;
  /** `data.retryAfterMs`, when it is a finite number of milliseconds, 0 or more. */
  retryAfterMs: number | undefined;
}

export const cut = (text: string, most: number): string => (text.length > most ? `${text.slice(0, most)}...` : text);

/** `data` bounded and redacted, with its hints. */
export function keptErrorData(data: unknown, redact: Redact): KeptErrorData {
  const hints = { reason: reasonOf(data, redact), retryAfterMs: retryAfterOf(data) };
  if (data === undefined) return { data: undefined, dropped: undefined, ...hints };
  // Measured before anything is copied, so an oversized value is never copied (no key is looked for).
  const scan = scanJson(data, MAX_ERROR_DATA_BYTES, '');
  if (scan.tooDeep) return { data: undefined, dropped: 'was nested too deeply', ...hints };
  if (!scan.fits) return { data: undefined, dropped: `was over ${MAX_ERROR_DATA_BYTES} bytes serialised`, ...hints };
  const kept = redacted(data, redact);
  // "[REDACTED]" can be longer than the secret it replaces.
  if (jsonBytes(kept) > MAX_ERROR_DATA_BYTES) return { data: undefined, dropped: `was over ${MAX_ERROR_DATA_BYTES} bytes serialised once redacted`, ...hints };
  return { data: kept, dropped: undefined, ...hints };
}

/** A copy of a JSON value with every string redacted. Recursion is bounded: `scanJson` checked the depth. */
function redacted(value: unknown, redact: Redact): McpEventErrorData {
  if (typeof value === 'string') return redact(value);
  if (typeof value === 'number') {
    // A secret may be all digits (an account number in an env value): a number that shows one becomes the redacted text.
    const text = String(value);
    const safe = redact(text);
    return safe === text ? value : safe;
  }
  if (typeof value === 'boolean' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redacted(item, redact));
  if (isJsonObject(value)) {
    // fromEntries defines own properties, so a "__proto__" key the server sent stays a key.
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [redact(key), redacted(item, redact)]));
  }
  // Not JSON (only a caller in this process can hand one over): what JSON.stringify makes of it.
  return null;
}

function reasonOf(data: unknown, redact: Redact): string | undefined {
  if (!isJsonObject(data)) return undefined;
  const { reason, kind } = data;
  const text = typeof reason === 'string' ? reason : typeof kind === 'string' ? kind : undefined;
  // Redacted before it is cut: half a secret would no longer be found.
  return text === undefined ? undefined : cut(redact(text), MAX_REASON);
}

function retryAfterOf(data: unknown): number | undefined {
  if (!isJsonObject(data)) return undefined;
  const { retryAfterMs } = data;
  return typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs >= 0 ? retryAfterMs : undefined;
}
