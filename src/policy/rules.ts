/**
 * The call-policy rules and their evaluation, after Claude Code's permission semantics:
 * every deny rule is tried first (the host's, then the subject's server's), then every
 * ask rule, then every allow rule; the first match decides. So a deny holds whatever an
 * allow says, however specific the allow (`allow: ["github.delete_repo"]` loses to
 * `deny: ["github.*"]`). Annotations decide nothing by themselves: only a rule naming
 * an annotation predicate (`readOnly`, ...) reads them.
 *
 * Patterns are validated once, in `compilePolicy`, so a bad one stops start-up with its
 * field named, not a call later.
 */
import { McpConfigError } from '../mcp/errors.js';
import { parsePattern, type PolicySubject, type ToolPattern } from './patterns.js';

export type { AnnotationHints, PolicySubject } from './patterns.js';

/** What becomes of a call: it runs, it waits for a person's yes, or it is refused. */
export type PolicyDecision = 'allow' | 'ask' | 'deny';

/**
 * One level of rules (the host's, or one server's). Each list holds patterns (see
 * patterns.ts); inside a server's rules a pattern may be relative to that server
 * (`delete_*` there means `<server>.delete_*`, `*` all its tools). `default` applies when
 * no rule matches. Default: no rules, and no default of its own.
 */
export interface PolicyRules {
  deny?: string[];
  ask?: string[];
  allow?: string[];
  default?: PolicyDecision;
}

/** A decision and where it came from. */
export interface PolicyVerdict {
  decision: PolicyDecision;
  /**
   * Which rule decided: `deny: github.delete_*` (host), `server github allow: *` (a
   * server's rules), `server github default: ask`, `default: deny` (the host's default)
   * or `default` (nothing set: the built-in allow).
   */
  rule: string;
  source: 'host' | 'server' | 'default';
}

/** Policy rules, validated and ready to judge calls. */
export interface CompiledPolicy {
  /** The verdict on one call. Pure: the same subject always gets the same verdict. */
  decide(subject: PolicySubject): PolicyVerdict;
}

/** The order rules are tried in: every deny before any ask, every ask before any allow. */
const KINDS = ['deny', 'ask', 'allow'] as const;
type RuleKind = (typeof KINDS)[number];
const FIELDS: readonly string[] = [...KINDS, 'default'];
const DECISIONS: readonly string[] = ['allow', 'ask', 'deny'];

/** Nothing matched and nothing set: allow, which keeps today's behaviour, where every call runs. */
const BUILT_IN: PolicyVerdict = { decision: 'allow', rule: 'default', source: 'default' };

interface Rule {
  pattern: ToolPattern;
  verdict: PolicyVerdict;
}

interface Level {
  rules: Record<RuleKind, Rule[]>;
  fallback: PolicyVerdict | undefined;
}

/** Validates and compiles one level; `prefix` is its field path (`policy`, `servers.github.policy`). */
function compileLevel(input: unknown, prefix: string, serverId?: string): Level {
  const level: Level = { rules: { deny: [], ask: [], allow: [] }, fallback: undefined };
  if (input === undefined) return level;
  const fail = (field: string, message: string): never => {
    throw new McpConfigError(message, { serverId, field });
  };
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    fail(prefix, `Policy ${prefix} is not an object: write { "deny": [...], "ask": [...], "allow": [...], "default": "allow" }.`);
  }
  const fields = input as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    // A misspelt list would otherwise be silently no rule at all.
    if (!FIELDS.includes(key)) fail(`${prefix}.${key}`, `Policy field ${prefix}.${key} is unknown: use deny, ask, allow or default.`);
  }
  const label = serverId === undefined ? '' : `server ${serverId} `;
  const source = serverId === undefined ? 'host' : 'server';
  for (const kind of KINDS) {
    const list = fields[kind];
    if (list === undefined) continue;
    if (!Array.isArray(list)) fail(`${prefix}.${kind}`, `Policy field ${prefix}.${kind} is not a list: write an array of patterns, e.g. ["github.delete_*"].`);
    (list as unknown[]).forEach((text, index) => {
      const pattern = parsePattern(text, `${prefix}.${kind}[${index}]`, serverId);
      level.rules[kind].push({ pattern, verdict: { decision: kind, rule: `${label}${kind}: ${pattern.text}`, source } });
    });
  }
  const fallback = fields.default;
  if (fallback !== undefined) {
    if (typeof fallback !== 'string' || !DECISIONS.includes(fallback)) {
      fail(`${prefix}.default`, `Policy field ${prefix}.default is ${JSON.stringify(fallback)}: use "allow", "ask" or "deny".`);
    }
    const decision = fallback as PolicyDecision;
    level.fallback = { decision, rule: `${label}default: ${decision}`, source: 'default' };
  }
  return level;
}

/**
 * Validates every pattern of the host's rules (`host`, fields `policy.*`) and of each
 * server's (`servers`, by server id, fields `servers.<id>.policy.*`) and returns the
 * compiled policy. A server's rules apply only to that server's tools (the id must be
 * equal, case and all). When nothing matches, the server's `default` applies, else the
 * host's, else `allow`. Default: no rules at all, so every call is allowed.
 *
 * Throws `McpConfigError` naming the field (e.g. `policy.deny[2]`,
 * `servers.github.policy.allow[0]`) for an invalid pattern, an unknown field, a list that
 * is not an array or a `default` that is not a decision.
 */
export function compilePolicy(host?: PolicyRules, servers?: Record<string, PolicyRules>): CompiledPolicy {
  const hostLevel = compileLevel(host, 'policy');
  // A Map, so a server id such as `__proto__` or `constructor` is only an id.
  const serverLevels = new Map<string, Level>();
  for (const [serverId, rules] of Object.entries(servers ?? {})) {
    serverLevels.set(serverId, compileLevel(rules, `servers.${serverId}.policy`, serverId));
  }
  return {
    decide(subject: PolicySubject): PolicyVerdict {
      const serverLevel = serverLevels.get(subject.serverId);
      for (const kind of KINDS) {
        const found =
          hostLevel.rules[kind].find((rule) => rule.pattern.matches(subject)) ??
          serverLevel?.rules[kind].find((rule) => rule.pattern.matches(subject));
        // A copy, so a caller's change to one verdict never leaks into the next.
        if (found !== undefined) return { ...found.verdict };
      }
      return { ...(serverLevel?.fallback ?? hostLevel.fallback ?? BUILT_IN) };
    },
  };
}
