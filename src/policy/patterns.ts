/**
 * The patterns of call-policy rules, and what each matches. A pattern names tools by
 * server id and remote tool name (the tool's own name on its server), or by annotation:
 *
 * - `github`: every tool of server `github` (a pattern with no dot names whole servers);
 * - `github.create_issue`, `github.*`, `*.delete_*`, `fs*`: globs, `*` any run of
 *   characters (none included), `?` one character, both free to match `.`, `/`, `-`, `_`;
 * - `readOnly`, `destructive`, `idempotent`, `openWorld`, or `github:readOnly`: tools whose
 *   annotations set that hint explicitly to `true`.
 *
 * Matching is case-insensitive. Server ids and tool names may hold dots themselves, so
 * `a.b.c` is read at every dot: it matches when any split does, server part against
 * the server id and tool part against the tool name (`a` + `b.c`, or `a.b` + `c`).
 * A server whose id has a dot is named whole with `a.b.*`, since `a.b` reads as a tool.
 *
 * Globs are turned into a RegExp here rather than by a library: picomatch (the glob
 * library already in the tree) is a path matcher, and even with `bash`, `dot`,
 * `nocase`, `nobrace`, `nobracket`, `noextglob` and `nonegate` its `?` never matches
 * `/`, which tool names may contain. Two wildcards need no dependency.
 */
import { McpConfigError } from '../mcp/errors.js';

/** The tool hints of MCP (`tools/list` annotations) a policy can read. */
export interface AnnotationHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The call a policy judges: which server, which tool (its remote name), and its annotations if any. */
export interface PolicySubject {
  serverId: string;
  /** The tool's own name on its server, not the name the model saw. */
  tool: string;
  annotations?: AnnotationHints;
}

/** A parsed pattern: its text as written, and its test. */
export interface ToolPattern {
  readonly text: string;
  matches(subject: PolicySubject): boolean;
}

/**
 * Annotation predicates by lower-cased name. Only an explicit `true` counts: MCP takes
 * an absent `destructiveHint` as `true` (for a tool not read-only), but a policy keyed
 * on a guess would deny or ask for tools that never said they destroy anything.
 */
const PREDICATES = new Map<string, keyof AnnotationHints>([
  ['readonly', 'readOnlyHint'],
  ['destructive', 'destructiveHint'],
  ['idempotent', 'idempotentHint'],
  ['openworld', 'openWorldHint'],
]);

const EVERYTHING = /[\s\S]*/u;

/** A glob as an anchored, case-insensitive RegExp: `*` and `?` are wild, every other character literal. */
function globRegExp(glob: string): RegExp {
  const source = Array.from(glob, (char) =>
    char === '*' ? '[\\s\\S]*' : char === '?' ? '[\\s\\S]' : char.replace(/[\\^$.*+?()[\]{}|/]/u, '\\$&'),
  ).join('');
  return new RegExp(`^${source}$`, 'iu');
}

/** One reading of a name pattern: a server glob, and a tool glob. */
interface Reading {
  server: RegExp;
  tool: RegExp;
}

/** The readings of `text` split at each dot, both parts non-empty. */
function splits(text: string): Reading[] {
  const readings: Reading[] = [];
  for (let at = text.indexOf('.'); at !== -1; at = text.indexOf('.', at + 1)) {
    if (at > 0 && at < text.length - 1) readings.push({ server: globRegExp(text.slice(0, at)), tool: globRegExp(text.slice(at + 1)) });
  }
  return readings;
}

function refuse(text: string, field: string, scope: string | undefined, problem: string): never {
  throw new McpConfigError(`Policy pattern ${JSON.stringify(text)} (${field}) ${problem}`, { serverId: scope, field });
}

/** Reads `text` as a pattern, or throws `McpConfigError` naming `field`, the pattern and the fix. */
function checked(text: unknown, field: string, scope: string | undefined): string {
  if (typeof text !== 'string') {
    throw new McpConfigError(`Policy pattern at ${field} is not a string: write a pattern such as "github.delete_*".`, { serverId: scope, field });
  }
  if (text === '') refuse(text, field, scope, 'is empty: write a server ("github"), a tool ("github.create_issue"), a glob ("*.delete_*") or an annotation ("readOnly").');
  if (/\s/u.test(text)) refuse(text, field, scope, 'contains whitespace: remove it; server ids and tool names have none.');
  return text;
}

/**
 * Parses a rule pattern (see the top of this file). `field` names where it was written,
 * for errors (e.g. `policy.deny[2]`). With `scope` (a server id) the pattern belongs to
 * that server's own rules: it matches only that server's tools, and a name pattern may
 * also be relative, the whole text a tool glob (`delete_*`, `*`, `files.read`), besides
 * the readings it has at host level (`github.delete_*`). Default: host level, no scope.
 *
 * Throws `McpConfigError` (with `field`) for an empty pattern, whitespace, an empty
 * server or tool part (`.tool`, `github.`, `:readOnly`) or an unknown annotation after `:`.
 */
export function parsePattern(text: unknown, field: string, scope?: string): ToolPattern {
  const pattern = checked(text, field, scope);
  const inScope = (serverId: string): boolean => scope === undefined || serverId === scope;
  const colon = pattern.lastIndexOf(':');
  const hint = PREDICATES.get(pattern.slice(colon + 1).toLowerCase());
  if (hint !== undefined) {
    if (colon === 0) refuse(pattern, field, scope, 'has an empty server part before ":": write "readOnly" for every server or "github:readOnly" for one.');
    const server = colon === -1 ? EVERYTHING : globRegExp(pattern.slice(0, colon));
    return {
      text: pattern,
      matches: (subject) => inScope(subject.serverId) && subject.annotations?.[hint] === true && server.test(subject.serverId),
    };
  }
  if (colon !== -1) {
    refuse(pattern, field, scope, `has "${pattern.slice(colon + 1)}" after ":", which is no annotation: use readOnly, destructive, idempotent or openWorld, as in "github:readOnly".`);
  }
  if (pattern.startsWith('.')) refuse(pattern, field, scope, 'has an empty server part: write "github.tool" for one server, "*.tool" for every server.');
  if (pattern.endsWith('.')) refuse(pattern, field, scope, 'has an empty tool part: write "github.*" or "github" for every tool of the server.');
  const readings = splits(pattern);
  // Inside a server's rules the whole text may be a tool glob; at host level a dotless pattern is a server glob.
  if (scope !== undefined) readings.push({ server: EVERYTHING, tool: globRegExp(pattern) });
  else if (readings.length === 0) readings.push({ server: globRegExp(pattern), tool: EVERYTHING });
  return {
    text: pattern,
    matches: (subject) =>
      inScope(subject.serverId) && readings.some((reading) => reading.server.test(subject.serverId) && reading.tool.test(subject.tool)),
  };
}
