/**
 * In-place edits of JSON-with-comments text that touch only the value being changed.
 * jsonc-parser's `modify` finds what to replace; its formatting pass is not used, since
 * it re-formats whole lines around an insertion or removal, and so neighbouring entries
 * a user wrote compactly. Insertions copy the indentation of their siblings, removals
 * take the property's own lines (with the comment lines right above it) and fix commas.
 */
import { applyEdits, createScanner, findNodeAtLocation, modify, parseTree, type Edit, type JSONPath, type Node } from 'jsonc-parser';

/** The line ending and one level of indentation of a file. */
export interface TextFormat {
  eol: '\n' | '\r\n';
  indent: string;
}

/** A value that is laid out on one line when it fits. */
const INLINE_WIDTH = 100;

// jsonc-parser's SyntaxKind is a const enum, which isolated modules cannot read from its declarations;
// tokens are compared as the numbers they are.
const TOKEN_COMMA = 5;
const TOKEN_LINE_COMMENT = 12;
const TOKEN_BLOCK_COMMENT = 13;
const TOKEN_LINE_BREAK = 14;
const TOKEN_TRIVIA = 15;
const TOKEN_EOF = 17;

/** Parse options: every dialect may hold comments and trailing commas, as VS Code's files do. */
export const JSONC_OPTIONS = { allowTrailingComma: true, disallowComments: false } as const;

/** The file's line ending (CRLF if it has any) and indentation (the smallest indent of a property line; default 2 spaces). */
export function detectFormat(text: string): TextFormat {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let indent: string | undefined;
  for (const line of text.split(/\r?\n/, 2000)) {
    const match = /^([ \t]+)"/.exec(line);
    if (match === null) continue;
    const lead = match[1]!;
    if (lead.startsWith('\t')) return { eol, indent: '\t' };
    if (indent === undefined || lead.length < indent.length) indent = lead;
  }
  return { eol, indent: indent ?? '  ' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inline(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  if (isRecord(value)) {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${inline(item)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

/** `value` as JSON starting at indentation `indent`: short arrays of scalars inline, objects one key a line. */
export function formatValue(value: unknown, format: TextFormat, indent: string): string {
  const inner = indent + format.indent;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const oneLine = inline(value);
    if (value.every((item) => typeof item !== 'object' || item === null) && indent.length + oneLine.length <= INLINE_WIDTH) return oneLine;
    return `[${format.eol}${value.map((item) => inner + formatValue(item, format, inner)).join(`,${format.eol}`)}${format.eol}${indent}]`;
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${formatValue(item, format, inner)}`);
    return `{${format.eol}${lines.join(`,${format.eol}`)}${format.eol}${indent}}`;
  }
  return JSON.stringify(value);
}

/** Whether a value is written without spaces after its `:` and `,` (minified JSON). */
function isCompact(text: string, node: Node): boolean {
  const written = text.slice(node.offset, node.offset + node.length);
  return /[,:]/.test(written) && !/[,:]\s/.test(written);
}

function lineStart(text: string, offset: number): number {
  let start = offset;
  while (start > 0 && text[start - 1] !== '\n' && text[start - 1] !== '\r') start--;
  return start;
}

function lineIndent(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset), offset + 1))![0];
}

/** The start of the line after the one holding `offset`, at most `limit`. */
function nextLineStart(text: string, offset: number, limit: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? limit : Math.min(newline + 1, limit);
}

function startsLine(text: string, offset: number): boolean {
  return text.slice(lineStart(text, offset), offset).trim() === '';
}

/** What follows a value: the comma after it (past comments), and where its line's trailing spaces and comments end. */
function after(text: string, end: number): { comma: number | undefined; lineEnd: number; breakEnd: number | undefined } {
  const scanner = createScanner(text, false);
  scanner.setPosition(end);
  let comma: number | undefined;
  let lineEnd = end;
  let sameLine = true;
  let breakEnd: number | undefined;
  const next = (): number => scanner.scan();
  for (let token = next(); token !== TOKEN_EOF; token = next()) {
    if (token === TOKEN_LINE_BREAK) {
      if (sameLine) breakEnd = scanner.getPosition();
      sameLine = false;
      continue;
    }
    if (token === TOKEN_TRIVIA) continue;
    if (token === TOKEN_COMMA && comma === undefined) {
      comma = scanner.getTokenOffset();
      if (sameLine) lineEnd = scanner.getPosition();
      continue;
    }
    if ((token === TOKEN_LINE_COMMENT || token === TOKEN_BLOCK_COMMENT) && sameLine) {
      const value = text.slice(scanner.getTokenOffset(), scanner.getPosition());
      if (!value.includes('\n')) {
        lineEnd = scanner.getPosition();
        continue;
      }
    }
    if (token === TOKEN_LINE_COMMENT || token === TOKEN_BLOCK_COMMENT) continue;
    break;
  }
  return { comma, lineEnd, breakEnd: breakEnd !== undefined && text.slice(lineEnd, breakEnd).trim() === '' ? breakEnd : undefined };
}

/** Whether `text` holds only whitespace and complete comments. */
function onlyComments(text: string): boolean {
  const scanner = createScanner(text, false);
  const next = (): number => scanner.scan();
  for (let token = next(); token !== TOKEN_EOF; token = next()) {
    if ((scanner.getTokenError() as number) !== 0) return false;
    if (token !== TOKEN_TRIVIA && token !== TOKEN_LINE_BREAK && token !== TOKEN_LINE_COMMENT && token !== TOKEN_BLOCK_COMMENT) return false;
  }
  return true;
}

/**
 * Where a property's removal starts: its line, and the comment lines right above it (up
 * to a blank line); for the last property also the blank lines above, which would
 * otherwise be left before the closing brace.
 */
function removalStart(text: string, regionStart: number, propertyOffset: number, last: boolean): number {
  const own = lineStart(text, propertyOffset);
  // The region's first line continues whatever precedes it (a `{`, a sibling's comma and comment).
  const firstFull = startsLine(text, regionStart) ? lineStart(text, regionStart) : nextLineStart(text, regionStart, own);
  let start = own;
  while (start > firstFull) {
    // `start - 1` is the previous line's `\n`; with CRLF, `start - 2` is its `\r`.
    const previous = lineStart(text, start - (text[start - 2] === '\r' ? 2 : 1));
    const line = text.slice(previous, start);
    if (line.trim() === '' || previous < firstFull) break;
    start = previous;
  }
  // Never cut a block comment in half: fall back to the property's own line.
  if (!onlyComments(text.slice(start, own))) start = own;
  while (last && start > firstFull) {
    const previous = lineStart(text, start - (text[start - 2] === '\r' ? 2 : 1));
    if (previous < firstFull || text.slice(previous, start).trim() !== '') break;
    start = previous;
  }
  return start;
}

function removeProperty(text: string, property: Node): string {
  const object = property.parent!;
  const siblings = object.children!;
  const index = siblings.indexOf(property);
  const end = property.offset + property.length;
  const following = after(text, end);
  const previous = siblings[index - 1];
  const previousComma = previous === undefined ? undefined : after(text, previous.offset + previous.length).comma;
  const edits: Edit[] = [];
  let start = property.offset;
  let stop = following.comma === undefined ? end : following.comma + 1;
  if (startsLine(text, property.offset)) {
    const regionStart = previous === undefined ? object.offset + 1 : previousComma === undefined ? previous.offset + previous.length : previousComma + 1;
    start = removalStart(text, regionStart, property.offset, index === siblings.length - 1);
    stop = Math.max(following.breakEnd ?? following.lineEnd, stop);
  } else if (following.comma !== undefined) {
    while (text[stop] === ' ' || text[stop] === '\t') stop++;
  } else if (previousComma !== undefined) {
    // The last of a one-line object: from the comma before it.
    start = previousComma;
  }
  edits.push({ offset: start, length: stop - start, content: '' });
  // The last property without a trailing comma: its predecessor's comma has to go with it.
  if (following.comma === undefined && previousComma !== undefined && previousComma < start) edits.push({ offset: previousComma, length: 1, content: '' });
  const result = applyEdits(text, edits);
  if (siblings.length === 1) {
    // An object left with only whitespace becomes `{}`.
    const open = object.offset;
    const close = result.indexOf('}', open);
    if (result.slice(open + 1, close).trim() === '') return result.slice(0, open + 1) + result.slice(close);
  }
  return result;
}

function insertProperty(text: string, object: Node, key: string, value: unknown, format: TextFormat): string {
  const siblings = object.children ?? [];
  const last = siblings.at(-1);
  if (last === undefined) {
    const indent = lineIndent(text, object.offset);
    const inner = indent + format.indent;
    const property = `${JSON.stringify(key)}: ${formatValue(value, format, inner)}`;
    const interior = text.slice(object.offset + 1, object.offset + object.length - 1);
    if (interior.trim() === '') {
      return applyEdits(text, [{ offset: object.offset + 1, length: interior.length, content: `${format.eol}${inner}${property}${format.eol}${indent}` }]);
    }
    return applyEdits(text, [{ offset: object.offset + 1, length: 0, content: `${format.eol}${inner}${property}` }]);
  }
  const lastEnd = last.offset + last.length;
  const following = after(text, lastEnd);
  const trailingComma = following.comma !== undefined;
  if (!startsLine(text, last.offset)) {
    // A one-line object: written in its own spacing (`{"a":1}` stays without spaces).
    const compact = isCompact(text, object);
    const property = compact ? `${JSON.stringify(key)}:${JSON.stringify(value)}` : `${JSON.stringify(key)}: ${inline(value)}`;
    if (compact) {
      return trailingComma
        ? applyEdits(text, [{ offset: following.comma! + 1, length: 0, content: `${property},` }])
        : applyEdits(text, [{ offset: lastEnd, length: 0, content: `,${property}` }]);
    }
    return trailingComma
      ? applyEdits(text, [{ offset: following.comma! + 1, length: 0, content: ` ${property},` }])
      : applyEdits(text, [{ offset: lastEnd, length: 0, content: `, ${property}` }]);
  }
  const indent = lineIndent(text, last.offset);
  const property = `${JSON.stringify(key)}: ${formatValue(value, format, indent)}`;
  const edits: Edit[] = [];
  if (!trailingComma) edits.push({ offset: lastEnd, length: 0, content: ',' });
  const at = Math.max(following.lineEnd, lastEnd);
  edits.push({ offset: at, length: 0, content: `${format.eol}${indent}${property}${trailingComma ? ',' : ''}` });
  return applyEdits(text, edits);
}

/**
 * `text` with the value at `path` set to `value`: replaced when it exists (on one line
 * if it was on one line and fits, without spaces in a minified object), inserted as the
 * last property of its object otherwise (the object must exist), removed when `value`
 * is `undefined` (a property only, not an array item).
 */
export function setValue(text: string, path: JSONPath, value: unknown, format: TextFormat): string {
  const root = parseTree(text, [], JSONC_OPTIONS);
  if (root === undefined) throw new Error('setValue: the text holds no JSON value');
  const node = findNodeAtLocation(root, path);
  if (value === undefined) {
    if (node === undefined) return text;
    if (node.parent?.type !== 'property') throw new Error('setValue: only object properties can be removed');
    return removeProperty(text, node.parent);
  }
  if (node !== undefined) {
    const [edit] = modify(text, path, value, {});
    const old = text.slice(node.offset, node.offset + node.length);
    const oneLine = inline(value);
    const indent = lineIndent(text, node.parent!.offset);
    const container = node.parent?.parent;
    if (container !== undefined && isCompact(text, container)) edit!.content = JSON.stringify(value);
    else edit!.content = !old.includes('\n') && indent.length + oneLine.length <= INLINE_WIDTH ? oneLine : formatValue(value, format, indent);
    return applyEdits(text, [edit!]);
  }
  const parent = findNodeAtLocation(root, path.slice(0, -1));
  if (parent?.type !== 'object') throw new Error('setValue: the parent of a new property must be an existing object');
  return insertProperty(text, parent, String(path.at(-1)), value, format);
}
