/** Byte accounting shared by the discovery helpers. */

/** UTF-8 byte length of a string (lone surrogates count as the 3-byte replacement character). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
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

/**
 * Whether `value` serialised as JSON takes at most `limit` UTF-8 bytes. A cheap upper
 * bound (every string character counted as a worst-case escape) decides almost every
 * call without serialising anything; only a value whose bound passes the limit is
 * serialised and measured exactly. Meant for data parsed from JSON; anything else is
 * measured exactly. A value too deep to serialise does not fit.
 */
export function jsonFits(value: unknown, limit: number): boolean {
  let bound = 0;
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
      for (const key in node) {
        bound += stringBound(key.length) + 2;
        pending.push((node as Record<string, unknown>)[key]);
      }
    } else {
      bound = Infinity;
    }
  }
  if (bound <= limit) return true;
  try {
    return jsonBytes(value) <= limit;
  } catch {
    return false;
  }
}
