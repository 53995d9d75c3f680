/**
 * The call-policy rules engine (src/policy/): pattern matching, the deny-ask-allow order,
 * per-server rules, defaults, the rules implied by editors' fields, and refused patterns.
 */
import { describe, expect, it } from 'vitest';
import { McpConfigError } from '../src/mcp/errors.js';
import { compilePolicy, editorPolicy, mergeRules, parsePattern, type PolicyRules, type PolicySubject } from '../src/policy/index.js';

const call = (serverId: string, tool: string, annotations?: PolicySubject['annotations']): PolicySubject =>
  annotations === undefined ? { serverId, tool } : { serverId, tool, annotations };

/** Whether `pattern`, written at host level, matches the call. */
const hostMatch = (pattern: string, subject: PolicySubject): boolean => parsePattern(pattern, 'policy.allow[0]').matches(subject);

/** The error `run` throws, as an McpConfigError. */
function configError(run: () => unknown): McpConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(McpConfigError);
    return error as McpConfigError;
  }
  throw new Error('expected an McpConfigError, nothing was thrown');
}

describe('call-policy patterns', () => {
  it('patterns match case-insensitively on the server id and the remote tool name', () => {
    expect(hostMatch('GitHub.Create_Issue', call('github', 'create_issue'))).toBe(true);
    expect(hostMatch('github.create_issue', call('GITHUB', 'CREATE_ISSUE'))).toBe(true);
    expect(hostMatch('github.create_issue', call('github', 'create_issues'))).toBe(false);
    expect(hostMatch('github.create_issue', call('gitlab', 'create_issue'))).toBe(false);
  });

  it('a pattern without a dot names every tool of the servers it matches, and only whole ids', () => {
    expect(hostMatch('github', call('github', 'anything'))).toBe(true);
    expect(hostMatch('github', call('github2', 'anything'))).toBe(false);
    expect(hostMatch('github', call('github', ''))).toBe(true);
    expect(hostMatch('fs*', call('fs-local', 'read_file'))).toBe(true);
    expect(hostMatch('fs*', call('local-fs', 'read_file'))).toBe(false);
  });

  it('a star matches any run of characters, dots and slashes included, and a question mark exactly one', () => {
    expect(hostMatch('*.delete_*', call('github', 'delete_repo'))).toBe(true);
    expect(hostMatch('*.delete_*', call('github', 'undelete_repo'))).toBe(false);
    expect(hostMatch('github.*', call('github', 'repos/list.all'))).toBe(true);
    expect(hostMatch('github.repo?', call('github', 'repo/'))).toBe(true);
    expect(hostMatch('github.repo?', call('github', 'repo'))).toBe(false);
    expect(hostMatch('github.repo?', call('github', 'repos1'))).toBe(false);
  });

  it('regular-expression characters in a pattern are plain text', () => {
    expect(hostMatch('a+b.(x)', call('a+b', '(x)'))).toBe(true);
    expect(hostMatch('a+b.(x)', call('aab', 'x'))).toBe(false);
    expect(hostMatch('s.a.c', call('s', 'abc'))).toBe(false);
  });

  it('a dotted pattern matches when any split at a dot matches the server id and the tool name', () => {
    expect(hostMatch('my.server.files.read', call('my.server', 'files.read'))).toBe(true);
    expect(hostMatch('my.server.files.read', call('my', 'server.files.read'))).toBe(true);
    expect(hostMatch('*.files.read', call('my.server', 'files.read'))).toBe(true);
    expect(hostMatch('my.server.*', call('my.server', 'x'))).toBe(true);
    // `my.*` splits as server `my`, which is not the id `my.server`; `my` alone names only the server `my`.
    expect(hostMatch('my.*', call('my.server', 'x'))).toBe(false);
    expect(hostMatch('my', call('my.server', 'x'))).toBe(false);
  });

  it('an annotation predicate holds only when its hint is explicitly true', () => {
    expect(hostMatch('readOnly', call('a', 't', { readOnlyHint: true }))).toBe(true);
    expect(hostMatch('READONLY', call('a', 't', { readOnlyHint: true }))).toBe(true);
    expect(hostMatch('readOnly', call('a', 't', { readOnlyHint: false }))).toBe(false);
    expect(hostMatch('readOnly', call('a', 't'))).toBe(false);
    // MCP would read this tool as destructive by default; the policy does not.
    expect(hostMatch('destructive', call('a', 't', { readOnlyHint: false }))).toBe(false);
    expect(hostMatch('destructive', call('a', 't', { destructiveHint: true }))).toBe(true);
    expect(hostMatch('idempotent', call('a', 't', { idempotentHint: true }))).toBe(true);
    expect(hostMatch('openworld', call('a', 't', { openWorldHint: true }))).toBe(true);
    expect(hostMatch('openWorld', call('a', 't', { idempotentHint: true }))).toBe(false);
  });

  it('a server prefix confines an annotation predicate to the servers it matches', () => {
    expect(hostMatch('github:readOnly', call('github', 'list', { readOnlyHint: true }))).toBe(true);
    expect(hostMatch('github:readOnly', call('gitlab', 'list', { readOnlyHint: true }))).toBe(false);
    expect(hostMatch('git*:destructive', call('gitlab', 'drop', { destructiveHint: true }))).toBe(true);
  });
});

describe('call-policy decisions', () => {
  it('a deny rule beats an allow rule that is more specific', () => {
    const policy = compilePolicy({ allow: ['github.delete_repo'], deny: ['github.*'] });
    expect(policy.decide(call('github', 'delete_repo'))).toEqual({ decision: 'deny', rule: 'deny: github.*', source: 'host' });
  });

  it('deny rules of host and server are all tried before any ask, and asks before any allow', () => {
    const policy = compilePolicy({ allow: ['github'], ask: ['*.delete_*'] }, { github: { deny: ['delete_repo'], allow: ['*'] } });
    expect(policy.decide(call('github', 'delete_repo'))).toEqual({ decision: 'deny', rule: 'server github deny: delete_repo', source: 'server' });
    expect(policy.decide(call('github', 'delete_branch'))).toEqual({ decision: 'ask', rule: 'ask: *.delete_*', source: 'host' });
    expect(policy.decide(call('github', 'list_issues'))).toEqual({ decision: 'allow', rule: 'allow: github', source: 'host' });
  });

  it('the first matching rule of the same kind decides and the verdict names it', () => {
    const policy = compilePolicy({ deny: ['github.delete_*', '*.delete_*', 'github'] });
    expect(policy.decide(call('github', 'delete_repo')).rule).toBe('deny: github.delete_*');
    expect(policy.decide(call('gitlab', 'delete_repo')).rule).toBe('deny: *.delete_*');
    expect(policy.decide(call('github', 'list')).rule).toBe('deny: github');
    const both = compilePolicy({ ask: ['*.merge'] }, { github: { ask: ['merge'] } });
    expect(both.decide(call('github', 'merge')).rule).toBe('ask: *.merge');
  });

  it('an annotation never allows a call without a rule that names it', () => {
    const readOnly = call('db', 'query', { readOnlyHint: true, idempotentHint: true });
    expect(compilePolicy({ default: 'deny' }).decide(readOnly).decision).toBe('deny');
    expect(compilePolicy({ default: 'deny', allow: ['idempotent'] }).decide(call('db', 'query')).decision).toBe('deny');
    expect(compilePolicy({ default: 'deny', allow: ['readOnly'] }).decide(readOnly)).toEqual({ decision: 'allow', rule: 'allow: readOnly', source: 'host' });
    expect(compilePolicy({ ask: ['destructive'] }).decide(call('db', 'drop', { destructiveHint: true })).decision).toBe('ask');
  });

  it("a server's rules apply only to its own tools", () => {
    const policy = compilePolicy({}, { github: { deny: ['*', '*.*', 'readOnly'], default: 'deny' } });
    expect(policy.decide(call('github', 'list'))).toEqual({ decision: 'deny', rule: 'server github deny: *', source: 'server' });
    expect(policy.decide(call('gitlab', 'list', { readOnlyHint: true }))).toEqual({ decision: 'allow', rule: 'default', source: 'default' });
    expect(policy.decide(call('GitHub', 'list')).decision).toBe('allow');
    // The pattern itself is confined too, not only the rules engine's lookup.
    expect(parsePattern('*', 'servers.github.policy.deny[0]', 'github').matches(call('gitlab', 'list'))).toBe(false);
    expect(parsePattern('*', 'servers.github.policy.deny[0]', 'github').matches(call('github', 'list'))).toBe(true);
  });

  it("a pattern inside a server's rules may name its tools relatively or absolutely", () => {
    const policy = compilePolicy({ default: 'deny' }, { github: { allow: ['delete_*', 'github.create_*', 'files.read', 'github:readOnly'] } });
    expect(policy.decide(call('github', 'delete_repo')).rule).toBe('server github allow: delete_*');
    expect(policy.decide(call('github', 'create_issue')).rule).toBe('server github allow: github.create_*');
    expect(policy.decide(call('github', 'files.read')).rule).toBe('server github allow: files.read');
    expect(policy.decide(call('github', 'stars', { readOnlyHint: true })).rule).toBe('server github allow: github:readOnly');
    expect(policy.decide(call('github', 'merge')).decision).toBe('deny');
    expect(policy.decide(call('files', 'read')).decision).toBe('deny');
  });

  it("the default is the server's, else the host's, else allow", () => {
    const rules = { github: { default: 'ask' }, gitlab: { allow: ['x'] } } satisfies Record<string, PolicyRules>;
    const withHost = compilePolicy({ default: 'deny' }, rules);
    expect(withHost.decide(call('github', 'y'))).toEqual({ decision: 'ask', rule: 'server github default: ask', source: 'default' });
    expect(withHost.decide(call('gitlab', 'y'))).toEqual({ decision: 'deny', rule: 'default: deny', source: 'default' });
    expect(compilePolicy(undefined, rules).decide(call('gitlab', 'y'))).toEqual({ decision: 'allow', rule: 'default', source: 'default' });
    expect(compilePolicy().decide(call('any', 'tool')).decision).toBe('allow');
  });

  it('a verdict handed out is a copy the caller may change', () => {
    const policy = compilePolicy({ deny: ['a'] });
    const first = policy.decide(call('a', 't'));
    first.decision = 'allow';
    expect(policy.decide(call('a', 't')).decision).toBe('deny');
  });
});

describe('rules implied by editor fields', () => {
  it("Cline's autoApprove and Roo's alwaysAllow become allow rules, Gemini's trust allows every tool, disabledTools and excludeTools deny", () => {
    expect(editorPolicy({ command: 'x', autoApprove: ['read'], alwaysAllow: ['list'] })).toEqual({ allow: ['read', 'list'] });
    expect(editorPolicy({ trust: true })).toEqual({ allow: ['*'] });
    expect(editorPolicy({ trust: 'yes' })).toBeUndefined();
    expect(editorPolicy({ disabledTools: ['drop'], excludeTools: ['wipe'] })).toEqual({ deny: ['drop', 'wipe'] });
    const policy = compilePolicy({ default: 'deny' }, { db: editorPolicy({ trust: true, excludeTools: ['drop'] }) ?? {} });
    expect(policy.decide(call('db', 'query')).rule).toBe('server db allow: *');
    expect(policy.decide(call('db', 'drop')).rule).toBe('server db deny: drop');
  });

  it('an entry without editor fields, or with ill-shaped ones, implies no rule', () => {
    expect(editorPolicy({ command: 'npx', args: ['server'] })).toBeUndefined();
    expect(editorPolicy({ autoApprove: 'read', alwaysAllow: [1, 'list'], disabledTools: {} })).toBeUndefined();
    expect(editorPolicy({ autoApprove: ['', 'bad name', 'read'] })).toEqual({ allow: ['read'] });
  });

  it("merging keeps both rule lists, explicit first, and the explicit default", () => {
    expect(mergeRules({ deny: ['a'], default: 'ask' }, { deny: ['b'], allow: ['c'], default: 'deny' })).toEqual({
      deny: ['a', 'b'],
      allow: ['c'],
      default: 'ask',
    });
    expect(mergeRules({ allow: ['a'] }, { default: 'deny' })).toEqual({ allow: ['a'], default: 'deny' });
    expect(mergeRules(undefined, { allow: ['x'] })).toEqual({ allow: ['x'] });
    expect(mergeRules(undefined, undefined)).toBeUndefined();
  });
});

describe('refused policies', () => {
  it('an invalid pattern is refused naming its field and how to fix it', () => {
    const cases: [PolicyRules, string, RegExp][] = [
      [{ deny: ['a', 'b', ''] }, 'policy.deny[2]', /is empty: write a server/],
      [{ ask: ['.tool'] }, 'policy.ask[0]', /empty server part: write "github\.tool"/],
      [{ allow: ['github.'] }, 'policy.allow[0]', /empty tool part: write "github\.\*"/],
      [{ allow: [' github'] }, 'policy.allow[0]', /whitespace: remove it/],
      [{ allow: [':readOnly'] }, 'policy.allow[0]', /empty server part before ":"/],
      [{ deny: ['github:readonlyy'] }, 'policy.deny[0]', /no annotation: use readOnly, destructive, idempotent or openWorld/],
    ];
    for (const [rules, field, fix] of cases) {
      const error = configError(() => compilePolicy(rules));
      expect(error.field).toBe(field);
      expect(error.message).toContain(field);
      expect(error.message).toMatch(fix);
    }
    const inServer = configError(() => compilePolicy({}, { github: { allow: ['ok', 'a b'] } }));
    expect(inServer.field).toBe('servers.github.policy.allow[1]');
    expect(inServer.message).toContain('"a b"');
    expect(inServer.serverId).toBe('github');
  });

  it('an unknown field, a list that is not an array and a default that is no decision are refused', () => {
    const asRules = (value: unknown): PolicyRules => value as PolicyRules;
    expect(configError(() => compilePolicy(asRules({ denny: ['a'] }))).field).toBe('policy.denny');
    expect(configError(() => compilePolicy(asRules({ deny: 'github' }))).field).toBe('policy.deny');
    expect(configError(() => compilePolicy(asRules({ deny: [3] }))).field).toBe('policy.deny[0]');
    expect(configError(() => compilePolicy({}, { gh: asRules({ default: 'block' }) })).message).toMatch(/servers\.gh\.policy\.default .*"allow", "ask" or "deny"/);
  });
});
