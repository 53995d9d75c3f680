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

/** Cuts `text` to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (utf8Fits(text, maxBytes)) return text;
  const bytes = Buffer.from(text, 'utf8');
  let end = Math.max(0, maxBytes);
  // Step back over continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
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

/** The state of one `scanJson` walk. */
interface Walk {
  bound: number;
  hasKey: boolean;
  readonly key: string;
  readonly maxDepth: number;
}

/**
 * Adds `node`'s bound to the walk and notes the watched key; `false` when a container
 * sits at `maxDepth` or deeper. Recursion is safe: it never goes past `MAX_JSON_DEPTH`.
 */
function measure(node: unknown, depth: number, walk: Walk): boolean {
  if (typeof node === 'string') walk.bound += stringBound(node.length);
  else if (typeof node === 'number') walk.bound += NUMBER_BOUND;
  else if (typeof node === 'boolean' || node === null || node === undefined) walk.bound += 5;
  else if (depth >= walk.maxDepth) return false;
  else if (Array.isArray(node)) {
    walk.bound += 2 + node.length;
    for (const item of node) if (!measure(item, depth + 1, walk)) return false;
  } else if (typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
    walk.bound += 2;
    for (const name in node) {
      walk.bound += stringBound(name.length) + 2;
      if (name === walk.key) walk.hasKey = true;
      if (!measure((node as Record<string, unknown>)[name], depth + 1, walk)) return false;
    }
  } else {
    // Not plain JSON data: measured exactly by the caller, and not searched.
    walk.bound = Infinity;
    walk.hasKey = true;
  }
  return true;
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
  const walk: Walk = { bound: 0, hasKey: false, key, maxDepth: Math.min(maxDepth, MAX_JSON_DEPTH) };
  // The whole value is walked even once the bound passes the limit: its depth is needed either way.
  if (!measure(value, 0, walk)) return { fits: false, tooDeep: true, mayHaveKey: true };
  const { bound, hasKey } = walk;
  if (bound <= limit) return { fits: true, tooDeep: false, mayHaveKey: hasKey };
  try {
    return { fits: jsonBytes(value) <= limit, tooDeep: false, mayHaveKey: hasKey };
  } catch {
    // Deeper than the serialiser goes, or not serialisable at all.
    return { fits: false, tooDeep: true, mayHaveKey: true };
  }
}
