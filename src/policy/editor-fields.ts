/**
 * The rules an mcp.json server entry already implies through the fields editors write:
 * Cline's `autoApprove` and Roo Code's `alwaysAllow` (tool names run without asking),
 * Gemini CLI's `trust: true` (every tool of the server runs without asking), and
 * `disabledTools` / `excludeTools` (tools that must not run). A file written for one of
 * those editors keeps meaning what its author meant when mcp-fleet runs it.
 *
 * The names become rules of that server (patterns relative to it, see patterns.ts).
 * A field of the wrong shape is skipped here: the config validator reports it.
 */
import type { PolicyRules } from './rules.js';

/** Fields whose tool names are allowed: Cline's, then Roo Code's. */
const ALLOW_FIELDS = ['autoApprove', 'alwaysAllow'] as const;
/** Fields whose tool names are denied: Roo Code's / Cline's `disabledTools`, Gemini CLI's `excludeTools`. */
const DENY_FIELDS = ['disabledTools', 'excludeTools'] as const;

/**
 * The tool names of a field, or undefined when it is not an array of strings. A name
 * that is empty or holds whitespace cannot be a pattern (nor a tool name under SEP-986)
 * and is left out, so one stray entry does not make the whole entry unusable.
 */
function toolNames(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || !value.every((name): name is string => typeof name === 'string')) return undefined;
  return value.filter((name) => name !== '' && !/\s/u.test(name));
}

/**
 * The rules implied by a server entry's editor fields: `autoApprove`, `alwaysAllow` →
 * `allow` of those tools; `trust: true` → `allow: ["*"]`; `disabledTools`,
 * `excludeTools` → `deny` of those tools. Meant as the rules of that server (the second
 * argument of `compilePolicy`), where a name is relative to the server. Returns
 * undefined when the entry implies no rule: none of the fields, or only empty or
 * ill-shaped ones. Never sets `default`.
 */
export function editorPolicy(entry: Record<string, unknown>): PolicyRules | undefined {
  const allow = ALLOW_FIELDS.flatMap((field) => toolNames(entry[field]) ?? []);
  if (entry.trust === true) allow.push('*');
  const deny = DENY_FIELDS.flatMap((field) => toolNames(entry[field]) ?? []);
  if (allow.length === 0 && deny.length === 0) return undefined;
  return { ...(deny.length > 0 ? { deny } : {}), ...(allow.length > 0 ? { allow } : {}) };
}

/**
 * One server's rules from its explicit `policy` (`explicit`) and those its editor fields
 * imply (`implied`): each list is the explicit one followed by the implied one (order
 * matters only for which rule a verdict names, since deny, ask and allow are tried
 * kind by kind), and `default` is the explicit one's, else the implied one's. Lists
 * left empty are omitted. Returns undefined when both are undefined.
 */
export function mergeRules(explicit: PolicyRules | undefined, implied: PolicyRules | undefined): PolicyRules | undefined {
  if (explicit === undefined) return implied === undefined ? undefined : { ...implied };
  if (implied === undefined) return { ...explicit };
  const merged: PolicyRules = {};
  for (const kind of ['deny', 'ask', 'allow'] as const) {
    const list = [...(explicit[kind] ?? []), ...(implied[kind] ?? [])];
    if (list.length > 0) merged[kind] = list;
  }
  const fallback = explicit.default ?? implied.default;
  if (fallback !== undefined) merged.default = fallback;
  return merged;
}
