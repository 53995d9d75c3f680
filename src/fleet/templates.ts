/**
 * The `${...}` template language of fleet configs, one syntax for every editor dialect:
 * `${VAR}` and `${VAR:-default}` (Claude Code), `${env:VAR}` (VS Code, Cursor), the VS Code
 * predefined variables `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`,
 * `${pathSeparator}` and `${/}`, and `${input:id}` (VS Code inputs). Text outside templates
 * is literal; there is no escape, as in the editors. Also the list of config fields that
 * take templates, shared by validation and expansion so they can never disagree.
 */
import { McpConfigError } from '../mcp/errors.js';

/** The VS Code predefined variables mcp-fleet knows (`${/}` is read as `pathSeparator`). */
export type McpPredefinedVariable = 'userHome' | 'workspaceFolder' | 'workspaceFolderBasename' | 'pathSeparator';

/** Literal text of a templated string. */
export interface McpTemplateText {
  kind: 'text';
  text: string;
}

/** `${VAR}`, `${VAR:-default}` or `${env:VAR}`: an environment variable. */
export interface McpTemplateVariable {
  kind: 'variable';
  name: string;
  /** The literal default of `${VAR:-default}`, used when VAR is unset or empty; absent without `:-`. */
  default?: string;
  /** The template as written, e.g. `${env:HOME}`. */
  source: string;
}

/** `${userHome}`, `${workspaceFolder}`, `${workspaceFolderBasename}`, `${pathSeparator}` or `${/}`. */
export interface McpTemplatePredefined {
  kind: 'predefined';
  name: McpPredefinedVariable;
  source: string;
}

/** `${input:id}`: a value the application asks for (a VS Code input). */
export interface McpTemplateInput {
  kind: 'input';
  id: string;
  source: string;
}

/** A template reference: every part that is not literal text. */
export type McpTemplateReference = McpTemplateVariable | McpTemplatePredefined | McpTemplateInput;

/** One piece of a parsed string, in order. */
export type McpTemplatePart = McpTemplateText | McpTemplateReference;

/** Where a string came from, for error messages. */
export interface McpTemplateOrigin {
  serverId?: string;
  /** The config field, e.g. `transport.env.API_KEY`. */
  field?: string;
}

const PREDEFINED = new Set<string>(['userHome', 'workspaceFolder', 'workspaceFolderBasename', 'pathSeparator']);
const VARIABLE = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;
const ENV_VARIABLE = /^env:([A-Za-z_][A-Za-z0-9_]*)$/;
const INPUT = /^input:([A-Za-z0-9_.-]+)$/;

/**
 * VS Code variables mcp-fleet does not support, named in messages because they are
 * keywords, not values (anything else inside a refused template is never echoed).
 */
const VSCODE_PREFIXES = ['config', 'command', 'workspaceFolder', 'env', 'input'];
const VSCODE_NAMES = new Set([
  'file',
  'cwd',
  'execPath',
  'lineNumber',
  'selectedText',
  'relativeFile',
  'relativeFileDirname',
  'fileBasename',
  'fileBasenameNoExtension',
  'fileDirname',
  'fileDirnameBasename',
  'fileExtname',
  'fileWorkspaceFolder',
  'workspaceRoot',
  'defaultBuildTask',
]);

const SUPPORTED =
  'supported templates are ${VAR}, ${VAR:-default}, ${env:VAR}, ${input:id}, ${userHome}, ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and ${/}';

/** Whether `text` holds a template (valid or not): anything with `${`. */
export function hasTemplates(text: string): boolean {
  return text.includes('${');
}

function syntaxError(origin: McpTemplateOrigin, index: number, problem: string): never {
  const who = origin.serverId === undefined ? 'MCP server config' : `MCP server "${origin.serverId}"`;
  const field = origin.field === undefined ? 'a template string' : `\`${origin.field}\``;
  // Never the string itself: a header or env value with a broken template may be a secret.
  throw new McpConfigError(`${who}: ${field} ${problem} at character ${index + 1}; ${SUPPORTED}.`, {
    serverId: origin.serverId,
    field: origin.field,
  });
}

function describeUnsupported(body: string): string {
  const colon = body.indexOf(':');
  const prefix = colon > 0 ? body.slice(0, colon) : undefined;
  if (prefix !== undefined && VSCODE_PREFIXES.includes(prefix)) {
    return prefix === 'env' || prefix === 'input'
      ? `has a \${${prefix}:...} template whose name is not valid`
      : `has a \${${prefix}:...} template, which mcp-fleet does not support`;
  }
  if (VSCODE_NAMES.has(body)) return `has the editor variable \${${body}}, which mcp-fleet does not support`;
  if (/^[A-Za-z_][A-Za-z0-9_]*:[^-]/.test(body)) return 'has a ${VAR:...} template; a default is written ${VAR:-default}';
  return 'has an unsupported template';
}

function parseReference(body: string, source: string, origin: McpTemplateOrigin, index: number): McpTemplateReference {
  if (body === '') syntaxError(origin, index, 'has an empty template "${}"');
  if (body === '/') return { kind: 'predefined', name: 'pathSeparator', source };
  if (PREDEFINED.has(body)) return { kind: 'predefined', name: body as McpPredefinedVariable, source };
  const env = ENV_VARIABLE.exec(body);
  if (env !== null) return { kind: 'variable', name: env[1]!, source };
  const input = INPUT.exec(body);
  if (input !== null) return { kind: 'input', id: input[1]!, source };
  // `${file}` or `${cwd}` would read as variables, but in an editor's file they mean the editor's own.
  if (VSCODE_NAMES.has(body)) syntaxError(origin, index, describeUnsupported(body));
  const variable = VARIABLE.exec(body);
  if (variable !== null) {
    const fallback = variable[2];
    if (fallback === undefined) return { kind: 'variable', name: variable[1]!, source };
    // The default ends at the first `}`, so a nested template would be cut in half.
    if (fallback.includes('${')) syntaxError(origin, index, 'has a default that holds another template, which is not supported');
    return { kind: 'variable', name: variable[1]!, default: fallback, source };
  }
  syntaxError(origin, index, describeUnsupported(body));
}

/**
 * Splits `text` into literal text and template references, in order (an empty string
 * gives no parts). Throws `McpConfigError` naming `origin` (the server and the field)
 * for an unterminated `${`, an empty `${}` or any form outside the language.
 */
export function parseTemplate(text: string, origin: McpTemplateOrigin = {}): McpTemplatePart[] {
  const parts: McpTemplatePart[] = [];
  let rest = 0;
  for (let start = text.indexOf('${'); start !== -1; start = text.indexOf('${', rest)) {
    if (start > rest) parts.push({ kind: 'text', text: text.slice(rest, start) });
    const end = text.indexOf('}', start + 2);
    if (end === -1) syntaxError(origin, start, 'has a "${" without a closing "}"');
    parts.push(parseReference(text.slice(start + 2, end), text.slice(start, end + 1), origin, start));
    rest = end + 1;
  }
  if (rest < text.length) parts.push({ kind: 'text', text: text.slice(rest) });
  return parts;
}

/** The string `parts` stand for, with each reference replaced by what `resolve` returns for it. */
export function substituteTemplate(parts: readonly McpTemplatePart[], resolve: (reference: McpTemplateReference) => string): string {
  let result = '';
  for (const part of parts) result += part.kind === 'text' ? part.text : resolve(part);
  return result;
}

/** One config field that takes templates, with its current string. */
export interface McpTemplateField {
  /** Dotted field path as in `McpConfigError.field`, e.g. `transport.args.0`. */
  field: string;
  /** The same path as segments (array indexes are numbers). */
  path: readonly (string | number)[];
  text: string;
}

/** The templated transport fields in the order an entry usually lists them (questions are asked in this order). */
const TRANSPORT_FIELDS = ['command', 'args', 'env', 'cwd', 'envFile', 'url', 'headers', 'bearerToken'] as const;
const TRANSPORT_MAPS = new Set(['env', 'headers']);
// The enumerations (`flow`, `authMethod`, `applicationType`) are left out: a template there could never validate.
const OAUTH_STRINGS = ['redirectUri', 'clientId', 'clientSecret', 'clientMetadataUrl', 'clientName', 'privateKey', 'signingAlgorithm'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every string of `server` that takes templates, whether or not it holds one:
 * `transport.command`, `args`, `env` values, `cwd`, `envFile`, `url`, `headers` values,
 * `bearerToken` and the string fields of `oauth` (its `scopes` included). Fields of the
 * wrong type are skipped, so this also walks an unvalidated input.
 */
export function templateFields(server: unknown): McpTemplateField[] {
  const fields: McpTemplateField[] = [];
  const add = (path: (string | number)[], value: unknown): void => {
    if (typeof value === 'string') fields.push({ field: path.join('.'), path, text: value });
  };
  const transport = isRecord(server) ? server.transport : undefined;
  if (!isRecord(transport)) return fields;
  for (const key of TRANSPORT_FIELDS) {
    const value = transport[key];
    if (key === 'args' && Array.isArray(value)) value.forEach((arg, index) => add(['transport', 'args', index], arg));
    else if (TRANSPORT_MAPS.has(key) && isRecord(value)) for (const [name, item] of Object.entries(value)) add(['transport', key, name], item);
    else add(['transport', key], value);
  }
  const oauth = transport.oauth;
  if (isRecord(oauth)) {
    for (const key of OAUTH_STRINGS) add(['transport', 'oauth', key], oauth[key]);
    if (Array.isArray(oauth.scopes)) oauth.scopes.forEach((scope, index) => add(['transport', 'oauth', 'scopes', index], scope));
  }
  return fields;
}

/**
 * A deep copy of `server` with each templated field (one holding `${`) replaced by
 * `replace(field)`; every other value is copied as it is.
 */
export function replaceTemplateFields<T>(server: T, replace: (field: McpTemplateField) => string): T {
  const copy = structuredClone(server);
  for (const field of templateFields(server)) {
    if (!hasTemplates(field.text)) continue;
    let target = copy as unknown as Record<string | number, unknown>;
    for (const segment of field.path.slice(0, -1)) target = target[segment] as Record<string | number, unknown>;
    target[field.path.at(-1)!] = replace(field);
  }
  return copy;
}

/** Every template reference of `server`, with the field that holds it, in field order. Throws on a syntax error. */
export function templateReferences(server: unknown, serverId?: string): { field: string; reference: McpTemplateReference }[] {
  return templateFields(server).flatMap(({ field, text }) =>
    parseTemplate(text, { serverId, field })
      .filter((part): part is McpTemplateReference => part.kind !== 'text')
      .map((reference) => ({ field, reference })),
  );
}
