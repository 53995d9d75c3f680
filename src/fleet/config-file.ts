/**
 * An `mcp.json` file as a document: read into validated fleet configs (see
 * `config-read.ts`), and rendered back by editing the original text in place, so
 * comments, formatting, key order and everything mcp-fleet does not own survive a save
 * byte for byte.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { findNodeAtLocation, getNodeValue, parseTree, type ParseError } from 'jsonc-parser';
import { McpConfigError } from '../mcp/errors.js';
import { checkIds, defaultWorkspace, McpConfigFileError, parseState, type DocumentState, type LoadedEntry, type McpConfigLoadOptions } from './config-read.js';

export type { McpConfigLoadOptions } from './config-read.js';
import { checkUnknownFields, serversKeyOf, unknownFieldsOf, writeEntry, type McpConfigDialect, type McpEntryPath } from './dialects.js';
import type { McpConfigInput } from './expand.js';
import { detectFormat, JSONC_OPTIONS, setValue, type TextFormat } from './jsonc-edit.js';
import type { McpFleetServerConfig } from './server-config.js';
import { checkFleetServerConfig } from './validate.js';

export { McpConfigFileError } from './config-read.js';

/** How `McpConfigDocument.render` writes the servers. */
export interface McpConfigRenderOptions {
  /**
   * Write in this dialect instead of the document's: the servers' key is renamed
   * (`servers` for VS Code, `mcpServers` elsewhere) and every entry is rewritten in the
   * dialect's style (its URL key, `type`, include/exclude keys); unknown fields, comments
   * and everything outside the servers stay. Gemini CLI's own `oauth` block is left out
   * of the other dialects, which would read it as mcp-fleet's. Default: the document's dialect.
   */
  dialect?: McpConfigDialect;
  /**
   * Fields to write into a new entry besides its config, by server id: an editor's own
   * keys, kept from the file the server came from (see `unknownFields`). Keys mcp-fleet
   * reads are refused. Entries the document already has keep their own. Default: none.
   */
  unknownFields?: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Patches the value at `path` from `old` to `value`, recursing into objects so untouched keys (and their comments) stay. */
function patchValue(text: string, path: McpEntryPath, old: unknown, value: unknown, format: TextFormat): string {
  if (isDeepStrictEqual(old, value)) return text;
  if (!isRecord(old) || !isRecord(value)) return setValue(text, path, value, format);
  let result = text;
  for (const key of Object.keys(old)) if (!Object.hasOwn(value, key)) result = setValue(result, [...path, key], undefined, format);
  for (const [key, item] of Object.entries(value)) result = patchValue(result, [...path, key], old[key], item, format);
  return result;
}

let construct: (state: DocumentState) => McpConfigDocument;

/** An `mcp.json` file: its servers, and how to write a new list of servers back into it. */
export class McpConfigDocument {
  /** The file's absolute path; `undefined` for text given without one. */
  readonly path: string | undefined;
  /** The dialect the file was read in (detected, or forced by `McpConfigLoadOptions.dialect`). */
  readonly dialect: McpConfigDialect;
  /** The text as read (without a byte order mark). */
  readonly text: string;
  /** What `${workspaceFolder}` means for this file (see `McpConfigLoadOptions.workspaceFolder`). */
  readonly workspaceFolder: string | undefined;
  /** VS Code `inputs` (`[]` in other dialects). */
  readonly inputs: readonly McpConfigInput[];
  readonly #entries: readonly LoadedEntry[];
  readonly #format: TextFormat;

  static {
    construct = (state) => new McpConfigDocument(state);
  }

  private constructor(state: DocumentState) {
    this.path = state.path;
    this.dialect = state.dialect;
    this.text = state.text;
    this.workspaceFolder = state.workspaceFolder;
    this.inputs = Object.freeze(state.inputs.map((input) => Object.freeze(structuredClone(input))));
    this.#entries = state.entries;
    this.#format = detectFormat(state.text);
  }

  /** The servers, validated, templates unexpanded, in file order; fresh copies. */
  servers(): McpFleetServerConfig[] {
    return this.#entries.map((entry) => structuredClone(entry.config));
  }

  /**
   * A top-level section of the file besides its servers (such as the gateway's
   * `profiles`), as written; `undefined` when the file has none. A fresh copy.
   */
  section(name: string): unknown {
    const node = findNodeAtLocation(parseTree(this.text, [], JSONC_OPTIONS) ?? { type: 'null', offset: 0, length: 0 }, [name]);
    return node === undefined ? undefined : getNodeValue(node);
  }

  /**
   * The keys of a server's entry that mcp-fleet does not read (an editor's own, such as
   * `"x-team": "core"`), as written, to carry the entry into another file; `{}` when it
   * has none or the document has no such server. A fresh copy.
   */
  unknownFields(serverId: string): Record<string, unknown> {
    const entry = this.#entries.find((candidate) => candidate.id === serverId);
    return entry === undefined ? {} : structuredClone(unknownFieldsOf(entry.raw));
  }

  /**
   * The text with `servers` written into it: unchanged entries (deep-equal to what was
   * loaded) are left byte for byte, changed ones are patched key by key in the style
   * they were read with (unknown keys kept), new ones are appended in the dialect's
   * style, missing ones are deleted. Everything else is kept as it was, indentation and
   * line endings included. In another dialect (`options.dialect`) every entry is
   * rewritten in that dialect's style, and the text must read back to the same servers.
   * Throws `McpConfigError` for an invalid server, for ids given twice or normalising
   * alike, for unknown fields that are not, and for a conversion that cannot be made.
   */
  render(servers: readonly McpFleetServerConfig[], options: McpConfigRenderOptions = {}): string {
    const checked = servers.map((server) => checkFleetServerConfig(server));
    checkIds(
      checked.map((server) => server.id),
      (message, index) => {
        throw new McpConfigError(message, { serverId: checked[index]!.id, field: 'id' });
      },
    );
    for (const [id, fields] of options.unknownFields ?? []) checkUnknownFields(id, fields);
    const dialect = options.dialect ?? this.dialect;
    // A new dialect restyles every entry, so none is left in a style the new one reads differently.
    const restyle = dialect !== this.dialect;
    if (restyle) checkConvertible(checked, this.dialect, dialect);
    const key = serversKeyOf(dialect);
    const wanted = new Set(checked.map((server) => server.id));
    const loaded = new Map(this.#entries.map((entry) => [entry.id, entry]));
    let text = restyle ? renameKey(this.text, serversKeyOf(this.dialect), key, dialect) : this.text;
    for (const entry of this.#entries) if (!wanted.has(entry.id)) text = setValue(text, [key, entry.id], undefined, this.#format);
    for (const server of checked) {
      const entry = loaded.get(server.id);
      if (entry === undefined || (!restyle && isDeepStrictEqual(entry.config, server))) continue;
      const written = writeEntry(server, dialect, restyle ? undefined : entry.style);
      const path = [key, server.id];
      for (const field of Object.keys(entry.raw)) {
        if (written.owned.has(field) && !Object.hasOwn(written.fields, field)) text = setValue(text, [...path, field], undefined, this.#format);
      }
      for (const [field, value] of Object.entries(written.fields)) text = patchValue(text, [...path, field], entry.raw[field], value, this.#format);
    }
    const added = checked.filter((server) => !loaded.has(server.id));
    const fieldsOf = (server: McpFleetServerConfig) => ({ ...writeEntry(server, dialect).fields, ...options.unknownFields?.get(server.id) });
    if (added.length > 0) {
      const root = parseTree(text, [], JSONC_OPTIONS);
      if (root !== undefined && findNodeAtLocation(root, [key]) === undefined) {
        text = setValue(text, [key], Object.fromEntries(added.map((server) => [server.id, fieldsOf(server)])), this.#format);
      } else {
        for (const server of added) text = setValue(text, [key, server.id], fieldsOf(server), this.#format);
      }
    }
    const errors: ParseError[] = [];
    parseTree(text, errors, JSONC_OPTIONS);
    // A guard, not a path users should reach: never hand back a file that would not load.
    if (errors.length > 0) throw new Error(`mcp-fleet produced invalid JSON while rendering ${this.path ?? 'an MCP config'}; nothing was written.`);
    if (restyle) {
      const back = parseState(text, { dialect, ...(this.path === undefined ? {} : { path: this.path }), ...(this.workspaceFolder === undefined ? {} : { workspaceFolder: this.workspaceFolder }) });
      const read = new Map(back.entries.map((entry) => [entry.id, entry.config]));
      const changed = checked.find((server) => !isDeepStrictEqual(read.get(server.id), server));
      if (changed !== undefined) throw new Error(`mcp-fleet could not write MCP server "${changed.id}" in the ${dialect} dialect without changing it; nothing was written.`);
    }
    return text;
  }

  /** An empty document for `dialect` (2-space indentation), for a fleet built in code and saved later. `workspaceFolder` defaults as in `McpConfigLoadOptions`. */
  static create(options: { dialect: McpConfigDialect; path?: string; workspaceFolder?: string }): McpConfigDocument {
    return construct({
      path: options.path === undefined ? undefined : resolve(options.path),
      dialect: options.dialect,
      text: `{\n  "${serversKeyOf(options.dialect)}": {}\n}\n`,
      workspaceFolder: options.workspaceFolder ?? defaultWorkspace(options.path),
      inputs: [],
      entries: [],
    });
  }
}

/**
 * Refuses a conversion that would change what a server means: `${input:...}` templates
 * are answered from VS Code's `inputs`, which no other dialect declares.
 */
function checkConvertible(servers: readonly McpFleetServerConfig[], from: McpConfigDialect, to: McpConfigDialect): void {
  if (from !== 'vscode' || to === 'vscode') return;
  const server = servers.find((candidate) => JSON.stringify(candidate).includes('${input:'));
  if (server === undefined) return;
  throw new McpConfigError(
    `MCP server "${server.id}" uses VS Code inputs (\${input:...}), which only VS Code's dialect declares, so it cannot be written as ${to}; replace them with \${env:...} templates first.`,
    { serverId: server.id },
  );
}

/** `text` with its top-level key `from` renamed to `to`, the value, comments and layout left as they are. */
function renameKey(text: string, from: string, to: string, dialect: McpConfigDialect): string {
  if (from === to) return text;
  const root = parseTree(text, [], JSONC_OPTIONS);
  const property = (name: string) => root?.children?.find((child) => child.children![0]!.value === name);
  if (property(to) !== undefined) {
    throw new McpConfigError(`The file already has a top-level "${to}" key, where the ${dialect} dialect keeps its servers; rename or remove it before saving as ${dialect}.`);
  }
  const keyNode = property(from)?.children![0];
  if (keyNode === undefined) return text;
  return text.slice(0, keyNode.offset) + JSON.stringify(to) + text.slice(keyNode.offset + keyNode.length);
}

/** Parses config text (synchronously). A leading byte order mark is dropped. Throws `McpConfigFileError`. */
export function parseMcpConfig(text: string, options: McpConfigLoadOptions = {}): McpConfigDocument {
  return construct(parseState(text.replace(/^\uFEFF/, ''), options));
}

/**
 * Loads a config: a string whose first non-blank characters are `{`, `//` or `/*` is
 * the text itself; anything else is a path, read as UTF-8 (a byte order mark dropped)
 * and kept absolute in `path`. Throws `McpConfigFileError`, naming the path when the
 * file is missing or unreadable.
 */
export async function loadMcpConfig(pathOrText: string, options: McpConfigLoadOptions = {}): Promise<McpConfigDocument> {
  if (/^\s*(?:\{|\/\/|\/\*)/.test(pathOrText.replace(/^\uFEFF/, ''))) return parseMcpConfig(pathOrText, options);
  const path = resolve(pathOrText);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === 'ENOENT'
        ? 'the MCP config file does not exist; create it, or check the path'
        : code === 'EISDIR'
          ? 'it is a folder, not an MCP config file; give the path of the file'
          : 'the MCP config file cannot be read (permission denied or an I/O error); check its permissions';
    throw new McpConfigFileError(`${path}: ${problem}.`, { file: path });
  }
  return parseMcpConfig(text, { ...options, path });
}
