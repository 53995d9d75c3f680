/** Byte accounting shared by the discovery helpers. */

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement character). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Whether a string takes at most `limit` UTF-8 bytes; measured only when its length leaves doubt. */
export function utf8Fits(text: string, limit: number): boolean {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes.
  return text.length * 3 <= limit || utf8Bytes(text) <= limit;
}

/** UTF-8 byte length of a value serialised as JSON. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? 'null');
}

export const KiB = 1024;
export const MiB = 1024 * 1024;

/** Most bytes one JSON string of `length` UTF-16 code units can take: quotes, and `\uXXXX` per unit. */
const stringBound = (length: number): number => 2 + 6 * length;
/** Longest JSON number text (`-1.2345678901234567e-308`). */
const NUMBER_BOUND = 24;

/** What one walk of a JSON value learns: see {@link scanJson}. */
export interface JsonScan {
  /** Whether the value serialised as JSON takes at most the limit in UTF-8 bytes. */
  fits: boolean;
  /** Whether the watched key may occur as an object key anywhere in the value (`true` when unsure). */
  mayHaveKey: boolean;
}

/**
 * Measures `value` against `limit` bytes of JSON and looks for the object key `key`, in
 * one walk. A cheap upper bound (every string character counted as a worst-case escape)
 * decides almost every value without serialising anything; only a value whose bound
 * passes the limit is serialised and measured exactly (and then `mayHaveKey` is `true`,
 * the walk having stopped early). Meant for data parsed from JSON; anything else is
 * measured exactly. A value too deep to serialise does not fit.
 */
export function scanJson(value: unknown, limit: number, key: string): JsonScan {
  let bound = 0;
  let hasKey = false;
  const pending: unknown[] = [value];
  while (pending.length > 0 && bound <= limit) {
    const node = pending.pop();
    if (typeof node === 'string') bound += stringBound(node.length);
    else if (typeof node === 'number') bound += NUMBER_BOUND;
    else if (typeof node === 'boolean' || node === null || node === undefined) bound += 5;
    else if (Array.isArray(node)) {
      bound += 2 + node.length;
      for (const item of node) pending.push(item);
    } else if (typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      bound += 2;
      for (const name in node) {
        bound += stringBound(name.length) + 2;
        if (name === key) hasKey = true;
        pending.push((node as Record<string, unknown>)[name]);
      }
    } else {
      bound = Infinity;
    }
  }
  if (bound <= limit) return { fits: true, mayHaveKey: hasKey };
  try {
    return { fits: jsonBytes(value) <= limit, mayHaveKey: true };
  } catch {
    return { fits: false, mayHaveKey: true };
  }
}

/** Whether `value` serialised as JSON takes at most `limit` UTF-8 bytes (see {@link scanJson}). */
export function jsonFits(value: unknown, limit: number): boolean {
  return scanJson(value, limit, '').fits;
}
