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
/** Longest JSON number text: 17 significant digits after `-0.00000` (`-0.0000012345678901234567`). */
const NUMBER_BOUND = 25;

/** Deepest nesting of objects and arrays `scanJson` accepts by default: well within what `JSON.stringify` can serialise. */
export const MAX_JSON_DEPTH = 1000;

/** What one walk of a JSON value learns: see {@link scanJson}. */
export interface JsonScan {
  /** Whether the value serialised as JSON takes at most the limit in UTF-8 bytes, and nests no deeper than allowed. */
  fits: boolean;
  /** Whether it nests objects and arrays deeper than allowed (then it does not fit). */
  tooDeep: boolean;
  /** Whether the watched key may occur as an object key anywhere in the value (`true` when unsure: a value that is not plain JSON data, or too deep). */
  mayHaveKey: boolean;
}

/**
 * Measures `value` against `limit` bytes of JSON and `maxDepth` levels of nested objects
 * and arrays, and looks for the object key `key`, in one walk. A cheap upper bound (every
 * string character counted as a worst-case escape) decides almost every value without
 * serialising anything; only a value whose bound passes the limit is serialised and
 * measured exactly. Meant for data parsed from JSON; anything else is measured exactly.
 * The depth matters because a small value can nest too deeply for `JSON.stringify`
 * (about 4,000 levels), and every later serialisation of it would throw.
 */
export function scanJson(value: unknown, limit: number, key: string, maxDepth = MAX_JSON_DEPTH): JsonScan {
  let bound = 0;
  let hasKey = false;
  // Nodes still to visit, each with the depth of the container it sits in.
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  // The whole value is walked even once the bound passes the limit: its depth is needed either way.
  while (pending.length > 0) {
    const node = pending.pop();
    const depth = depths.pop()!;
    if (typeof node === 'string') bound += stringBound(node.length);
    else if (typeof node === 'number') bound += NUMBER_BOUND;
    else if (typeof node === 'boolean' || node === null || node === undefined) bound += 5;
    else if (depth >= maxDepth) return { fits: false, tooDeep: true, mayHaveKey: true };
    else if (Array.isArray(node)) {
      bound += 2 + node.length;
      for (const item of node) {
        pending.push(item);
        depths.push(depth + 1);
      }
    } else if (typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      bound += 2;
      for (const name in node) {
        bound += stringBound(name.length) + 2;
        if (name === key) hasKey = true;
        pending.push((node as Record<string, unknown>)[name]);
        depths.push(depth + 1);
      }
    } else {
      // Not plain JSON data: measured exactly below, and not searched.
      bound = Infinity;
      hasKey = true;
    }
  }
  if (bound <= limit) return { fits: true, tooDeep: false, mayHaveKey: hasKey };
  try {
    return { fits: jsonBytes(value) <= limit, tooDeep: false, mayHaveKey: hasKey };
  } catch {
    // Deeper than the serialiser goes, or not serialisable at all.
    return { fits: false, tooDeep: true, mayHaveKey: true };
  }
}
