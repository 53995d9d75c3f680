/**
 * Reading config text: JSONC parsed with positions, the dialect detected, VS Code inputs,
 * each entry read and validated, and every problem reported as an `McpConfigFileError`
 * at the line and column of the key or value it is about.
 */
import { basename, dirname, resolve } from 'node:path';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { McpConfigError } from '../mcp/errors.js';
import { sanitizeNamePart } from '../mcp/catalog/naming.js';
import { detectDialect, entryPathOf, MCP_CONFIG_DIALECTS, McpEntryError, readEntry, serversKeyOf, writtenField, type McpConfigDialect, type McpEntryPath, type McpEntryStyle } from './dialects.js';
import type { McpConfigInput } from './expand.js';
import { JSONC_OPTIONS } from './jsonc-edit.js';
import type { McpFleetServerConfig } from './server-config.js';
import { validateFleetServerId } from './server-id.js';
import { checkFleetServerConfig } from './validate.js';


/** How a config file is read. */
export interface McpConfigLoadOptions {
  /** Force a dialect instead of detecting it (see `detectDialect`). */
  dialect?: McpConfigDialect;
  /**
   * For `${workspaceFolder}`. Default: the file's folder, or its parent when the file is
   * in a `.vscode`, `.cursor` or `.gemini` folder (the project those editors open);
   * without a path, none.
   */
  workspaceFolder?: string;
  /** With `parseMcpConfig`: where the text came from (for messages, dialect detection and the workspace default). Default: none. */
  path?: string;
}

/** A config file problem. `line` and `column` are 1-based; the message starts with `<path>:<line>:<column>: ` when they are known. */
export class McpConfigFileError extends McpConfigError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;

  constructor(message: string, options: { file?: string; line?: number; column?: number; serverId?: string; field?: string } = {}) {
    super(message, options);
    this.file = options.file;
    this.line = options.line;
    this.column = options.column;
  }
}

/** One server entry as read: its validated config, its key style and its raw JSON. */
export interface LoadedEntry {
  id: string;
  config: McpFleetServerConfig;
  style: McpEntryStyle;
  /** The entry as the file has it, to patch against. */
  raw: Record<string, unknown>;
}

/** Everything a document holds, as read from its text. */
export interface DocumentState {
  path: string | undefined;
  dialect: McpConfigDialect;
  text: string;
  workspaceFolder: string | undefined;
  inputs: McpConfigInput[];
  entries: LoadedEntry[];
}

/** Editor folders whose parent is the workspace. */
const WORKSPACE_MARKERS = new Set(['.vscode', '.cursor', '.gemini']);

const EXPECTED: Record<string, string> = {
  InvalidSymbol: 'found an unexpected character',
  InvalidNumberFormat: 'found an invalid number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value (a string, number, object, array, true, false or null)',
  ColonExpected: 'expected ":" after the property name',
  CommaExpected: 'expected "," between two values',
  CloseBraceExpected: 'expected "}" to close the object',
  CloseBracketExpected: 'expected "]" to close the array',
  EndOfFileExpected: 'expected the end of the file after the top-level object',
  InvalidCommentToken: 'found an invalid comment',
  UnexpectedEndOfComment: 'expected "*/" to close the comment',
  UnexpectedEndOfString: 'expected a closing double quote',
  UnexpectedEndOfNumber: 'expected more digits',
  InvalidUnicode: 'found an invalid \\u escape',
  InvalidEscapeCharacter: 'found an invalid escape in a string',
  InvalidCharacter: 'found a control character in a string (escape it)',
};

/** The workspace a config file belongs to (see `McpConfigLoadOptions.workspaceFolder`). */
export function defaultWorkspace(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const folder = dirname(resolve(path));
  return WORKSPACE_MARKERS.has(basename(folder)) ? dirname(folder) : folder;
}

/** Builds errors that point into one text. */
class Locator {
  constructor(
    readonly text: string,
    readonly file: string | undefined,
  ) {}

  position(offset: number): { line: number; column: number } {
    let line = 1;
    let lineStart = 0;
    for (let index = this.text.indexOf('\n'); index !== -1 && index < offset; index = this.text.indexOf('\n', index + 1)) {
      line++;
      lineStart = index + 1;
    }
    return { line, column: offset - lineStart + 1 };
  }

  line(offset: number): number {
    return this.position(offset).line;
  }

  error(offset: number | undefined, message: string, about: { serverId?: string; field?: string } = {}): McpConfigFileError {
    const file = this.file ?? '<mcp config>';
    if (offset === undefined) return new McpConfigFileError(`${file}: ${message}`, { file: this.file, ...about });
    const { line, column } = this.position(offset);
    return new McpConfigFileError(`${file}:${line}:${column}: ${message}`, { file: this.file, line, column, ...about });
  }

  /** Throws on a key given twice in one object, under `node` (only in `node` itself unless `deep`), naming both lines. */
  checkDuplicates(node: Node | undefined, describe: (key: string, path: McpEntryPath) => string, deep = true, path: McpEntryPath = []): void {
    if (node?.type === 'array' && deep) node.children?.forEach((child, index) => this.checkDuplicates(child, describe, deep, [...path, index]));
    if (node?.type !== 'object') return;
    const seen = new Map<string, Node>();
    for (const property of node.children ?? []) {
      const key = property.children![0]!;
      const name = key.value as string;
      const first = seen.get(name);
      if (first !== undefined) {
        throw this.error(key.offset, `${describe(name, [...path, name])} is given twice (lines ${this.line(first.offset)} and ${this.line(key.offset)}); keep one.`);
      }
      seen.set(name, key);
      if (deep) this.checkDuplicates(property.children![1], describe, deep, [...path, name]);
    }
  }
}

/** The offset of the key (or array item) an entry path names, or of its nearest ancestor that exists. */
function offsetOf(entryKey: Node, value: Node, path: McpEntryPath): number {
  let offset = entryKey.offset;
  let node: Node | undefined = value;
  for (const segment of path) {
    if (node?.type === 'object') {
      const property: Node | undefined = node.children?.find((child) => child.children![0]!.value === segment);
      if (property === undefined) break;
      offset = property.children![0]!.offset;
      node = property.children![1];
    } else if (node?.type === 'array' && typeof segment === 'number' && node.children?.[segment] !== undefined) {
      node = node.children[segment];
      offset = node.offset;
    } else break;
  }
  return offset;
}

function readEntryAt(locator: Locator, property: Node, dialect: McpConfigDialect): LoadedEntry {
  const key = property.children![0]!;
  const value = property.children![1];
  let id: string;
  try {
    id = validateFleetServerId(key.value);
  } catch (error) {
    throw locator.error(key.offset, (error as McpConfigError).message, { field: 'id' });
  }
  if (value?.type !== 'object') {
    throw locator.error((value ?? key).offset, `MCP server "${id}": the entry must be an object, such as { "command": "npx", "args": ["-y", "<package>"] }.`, { serverId: id });
  }
  locator.checkDuplicates(value, (_name, path) => `MCP server "${id}": \`${writtenField(path)}\``);
  const raw = getNodeValue(value) as Record<string, unknown>;
  let read: ReturnType<typeof readEntry>;
  try {
    read = readEntry(id, raw, dialect);
  } catch (error) {
    if (!(error instanceof McpEntryError)) throw error;
    throw locator.error(offsetOf(key, value, error.entryPath), error.message, { serverId: id, field: error.field });
  }
  try {
    return { id, config: checkFleetServerConfig(read.config), style: read.style, raw };
  } catch (error) {
    if (!(error instanceof McpConfigError) || error.field === undefined) throw error;
    // The provider names its own field path; the file's reader wants the key the entry used.
    const path = entryPathOf(error.field, read.style, raw);
    const written = path.length === 0 ? error.field : writtenField(path);
    const message = withTypeFix(error.message.replace(`\`${error.field}\``, `\`${written}\``));
    throw locator.error(offsetOf(key, value, path), message, { serverId: id, field: written });
  }
}

const JSON_TYPES: Record<string, string> = {
  array: 'an array [...]',
  object: 'an object {...}',
  string: 'a string in double quotes',
  number: 'a number',
  boolean: 'true or false',
};

/** A type mismatch says what it expected but not how to write it in JSON: add that. */
function withTypeFix(message: string): string {
  const expected = /expected (\w+), received \w+\.$/.exec(message)?.[1];
  const written = expected === undefined ? undefined : JSON_TYPES[expected];
  return written === undefined ? message : `${message.slice(0, -1)}; write ${written} there.`;
}

/** Refuses ids given twice and ids that normalise alike in tool names (`a-b`, `a_b`). `where` gives a line for an id, when known. */
export function checkIds(ids: readonly string[], fail: (message: string, index: number) => never, where: (index: number) => string = () => ''): void {
  const seen = new Map<string, number>();
  ids.forEach((id, index) => {
    const part = sanitizeNamePart(id);
    const first = seen.get(part);
    if (first === undefined) {
      seen.set(part, index);
      return;
    }
    const other = ids[first]!;
    if (other === id) fail(`MCP server "${id}" is given twice${where(first)}; keep one.`, index);
    fail(
      `MCP servers "${other}"${where(first)} and "${id}"${where(index)} would share tool names (both become "mcp_${part}_..."); rename one.`,
      index,
    );
  });
}

function keyOffset(object: Node, key: string): number | undefined {
  return object.children?.find((property) => property.children![0]!.value === key)?.children![0]!.offset;
}

/** VS Code's `inputs`: an array of `{ type, id, description?, password?, default?, options? }` (other keys are VS Code's). */
function readInputs(locator: Locator, node: Node | undefined): McpConfigInput[] {
  if (node === undefined) return [];
  if (node.type !== 'array') {
    throw locator.error(node.offset, '"inputs" must be an array, such as [{ "type": "promptString", "id": "api-key", "description": "API key", "password": true }].');
  }
  const inputs: McpConfigInput[] = [];
  const seen = new Map<string, number>();
  for (const [index, item] of (node.children ?? []).entries()) {
    const fail = (key: string | undefined, problem: string): never => {
      const field = `inputs[${index}]${key === undefined ? '' : `.${key}`}`;
      throw locator.error(key === undefined ? item.offset : (keyOffset(item, key) ?? item.offset), `\`${field}\` ${problem}.`, { field });
    };
    if (item.type !== 'object') fail(undefined, 'must be an object with "type" and "id"');
    locator.checkDuplicates(item, (_name, path) => `\`inputs[${index}].${writtenField(path)}\``);
    const value = getNodeValue(item) as Record<string, unknown>;
    if (typeof value.id !== 'string' || !/^[A-Za-z0-9_.-]+$/.test(value.id)) fail('id', 'must be a non-empty string of letters, digits, ".", "-" and "_"');
    const id = value.id as string;
    if (typeof value.type !== 'string') fail('type', 'must be a string, such as "promptString" or "pickString"');
    const input: McpConfigInput = { id, type: value.type as string };
    for (const key of ['description', 'default'] as const) {
      if (value[key] === undefined) continue;
      if (typeof value[key] !== 'string') fail(key, 'must be a string');
      input[key] = value[key] as string;
    }
    if (value.password !== undefined) {
      if (typeof value.password !== 'boolean') fail('password', 'must be true or false');
      input.password = value.password as boolean;
    }
    if (value.options !== undefined) {
      // A `pickString` option is a string or `{ label, value }`.
      const options = Array.isArray(value.options) ? value.options.map((option: unknown) => (isRecord(option) ? option.value : option)) : undefined;
      if (options === undefined || !options.every((option) => typeof option === 'string')) fail('options', 'must be an array of strings (or of { "label", "value" } objects)');
      input.options = options as string[];
    }
    const first = seen.get(id);
    if (first !== undefined) fail('id', `repeats the id of inputs[${first}]; give each input its own id`);
    seen.set(id, index);
    inputs.push(input);
  }
  return inputs;
}

/** Reads config text into its dialect, inputs and validated entries; throws `McpConfigFileError` pointing into the text. */
export function parseState(text: string, options: McpConfigLoadOptions): DocumentState {
  const path = options.path === undefined ? undefined : resolve(options.path);
  const locator = new Locator(text, path);
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, JSONC_OPTIONS);
  const problem = errors[0];
  if (problem !== undefined) {
    const expected = text.trim() === '' ? 'the file is empty; expected an object such as { "mcpServers": {} }' : EXPECTED[printParseErrorCode(problem.error)];
    throw locator.error(problem.offset, `invalid JSON: ${expected ?? 'a syntax error'}; fix the file (comments and trailing commas are allowed).`);
  }
  if (root?.type !== 'object') throw locator.error(root?.offset ?? 0, 'the top level must be an object, such as { "mcpServers": {} }.');
  if (options.dialect !== undefined && !MCP_CONFIG_DIALECTS.includes(options.dialect)) {
    throw new McpConfigError(`Unknown MCP config dialect ${JSON.stringify(options.dialect)}; use one of ${MCP_CONFIG_DIALECTS.join(', ')}.`, { field: 'dialect' });
  }
  const dialect = options.dialect ?? detectDialect(getNodeValue(root), path);
  const serversKey = serversKeyOf(dialect);
  const workspaceFolder = options.workspaceFolder ?? defaultWorkspace(path);
  // Only the keys mcp-fleet reads: the rest of a Gemini settings file is not its business.
  const rootKeys = (root.children ?? []).filter((property) => [serversKey, 'inputs'].includes(property.children![0]!.value as string));
  locator.checkDuplicates({ ...root, children: rootKeys }, (name) => `"${name}"`, false);
  const servers = findNodeAtLocation(root, [serversKey]);
  const inputs = dialect === 'vscode' ? readInputs(locator, findNodeAtLocation(root, ['inputs'])) : [];
  const state: DocumentState = { path, dialect, text, workspaceFolder, inputs, entries: [] };
  if (servers === undefined) {
    // Gemini CLI's settings.json and Claude Code's ~/.claude.json hold much besides MCP servers, and often none.
    if (dialect === 'gemini_cli' || (path !== undefined && basename(path) === '.claude.json')) return state;
    const other = serversKey === 'servers' ? 'mcpServers' : 'servers';
    const hint = findNodeAtLocation(root, [other]) === undefined ? '' : ` (it has "${other}", the key of ${other === 'servers' ? 'VS Code' : 'the other editors'}: rename it, or load the file as another dialect)`;
    const example = serversKey === 'servers' ? '{ "servers": { "<id>": { "type": "stdio", "command": "..." } } }' : '{ "mcpServers": { "<id>": { "command": "..." } } }';
    throw locator.error(root.offset, `the file has no "${serversKey}" object${hint}; add one, such as ${example}.`);
  }
  if (servers.type !== 'object') throw locator.error(servers.offset, `"${serversKey}" must be an object that maps server ids to their entries.`);
  const properties = servers.children ?? [];
  locator.checkDuplicates(servers, (name) => `MCP server "${name}"`, false);
  state.entries = properties.map((property) => readEntryAt(locator, property, dialect));
  const keyOffsets = properties.map((property) => property.children![0]!.offset);
  checkIds(
    state.entries.map((entry) => entry.id),
    (message, index) => {
      throw locator.error(keyOffsets[index], message, { serverId: state.entries[index]!.id, field: 'id' });
    },
    (index) => ` (line ${locator.line(keyOffsets[index]!)})`,
  );
  return state;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
