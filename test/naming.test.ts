/**
 * Unit tests of model-facing MCP tool names (checklist B 25-37 and decision 396):
 * normalisation, the 64-character bound, SHA-256 hash suffixes, order-independent
 * collision handling and identities retained for the life of a registration.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidFunctionName, MAX_TOOL_NAME_LENGTH } from '../src/core/tool.js';
import {
  baseToolName,
  hashSuffix,
  NameBudgetError,
  nameWithHash,
  sanitizeNamePart,
  TOOL_PREFIX,
  ToolNameIndex,
} from '../src/mcp/catalog/naming.js';

const BUDGET = 2048;

/** Independent reference of the decided suffix: first 8 lowercase hex of SHA-256 over the UTF-8 key. */
function sha256Prefix(key: string): string {
  return createHash('sha256').update(Buffer.from(key, 'utf8')).digest('hex').slice(0, 8);
}

/** Names one server's catalog in a fresh index. */
function nameOne(serverId: string, remoteNames: string[]): Map<string, string> {
  const index = new ToolNameIndex();
  const { names, dropped } = index.assign(serverId, sanitizeNamePart(serverId), remoteNames, BUDGET);
  expect(dropped).toEqual([]);
  return names;
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const result = [...items];
  let state = seed >>> 0 || 1;
  for (let i = result.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    const j = state % (i + 1);
    [result[i], result[j]] = [result[j]!, result[i]!];
  }
  return result;
}

describe('sanitizeNamePart', () => {
  it('lowercases ASCII letters and keeps digits', () => {
    expect(sanitizeNamePart('GitHub42')).toBe('github42');
  });

  it('collapses every run of other characters into one underscore', () => {
    expect(sanitizeNamePart('issues.get-by-id')).toBe('issues_get_by_id');
    expect(sanitizeNamePart('a . / - b')).toBe('a_b');
    expect(sanitizeNamePart('a__b')).toBe('a_b');
  });

  it('trims leading and trailing separators', () => {
    expect(sanitizeNamePart('--files--')).toBe('files');
    expect(sanitizeNamePart('_x_')).toBe('x');
  });

  it('replaces non-ASCII characters, including letters that lowercase to ASCII, with separators', () => {
    expect(sanitizeNamePart('café-menu')).toBe('caf_menu');
    expect(sanitizeNamePart('naïve')).toBe('na_ve');
    // U+212A KELVIN SIGN lowercases to an ASCII "k" in Unicode, but it is not ASCII.
    expect(sanitizeNamePart('\u212Aelvin')).toBe('elvin');
    expect(sanitizeNamePart('emoji😀tool')).toBe('emoji_tool');
  });

  it('turns an empty or all-separator part into x', () => {
    expect(sanitizeNamePart('')).toBe('x');
    expect(sanitizeNamePart('---')).toBe('x');
    expect(sanitizeNamePart('中文')).toBe('x');
  });

  it('prefixes x when the part would start with a digit', () => {
    expect(sanitizeNamePart('9lives')).toBe('x9lives');
    expect(sanitizeNamePart('-42-')).toBe('x42');
  });

  it('always gives a lowercase identifier without double or trailing underscores, for any string', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (input) => {
        const part = sanitizeNamePart(input);
        expect(part).toMatch(/^[a-z][a-z0-9_]*$/);
        expect(part).not.toContain('__');
        expect(part.endsWith('_')).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the rule written out, on names made of the characters the fast path checks', () => {
    const reference = (input: string): string => {
      const result = input.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
      if (result === '') return 'x';
      return /^[a-z]/.test(result) ? result : `x${result}`;
    };
    const nameLike = fc.string({ unit: fc.constantFrom('a', 'z', 'A', '0', '9', '_', '-', '.'), maxLength: 12 });
    fc.assert(
      fc.property(nameLike, (input) => {
        expect(sanitizeNamePart(input)).toBe(reference(input));
      }),
      { numRuns: 1000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (input) => {
        const part = sanitizeNamePart(input);
        expect(sanitizeNamePart(part)).toBe(part);
      }),
    );
  });
});

describe('baseToolName', () => {
  it('joins the mcp prefix, the server part and the sanitised tool name', () => {
    expect(TOOL_PREFIX).toBe('mcp');
    expect(baseToolName(sanitizeNamePart('GitHub-Prod'), 'issues.get-by-id')).toBe('mcp_github_prod_issues_get_by_id');
    expect(baseToolName('repo', 'issues/get')).toBe('mcp_repo_issues_get');
  });
});

describe('hashSuffix and nameWithHash', () => {
  it('uses the first 8 lowercase hex digits of SHA-256 over the UTF-8 key', () => {
    expect(hashSuffix('repo:issues/get')).toBe(sha256Prefix('repo:issues/get'));
    expect(hashSuffix('srv:中文')).toBe(sha256Prefix('srv:中文'));
    expect(hashSuffix('srv:中文')).toMatch(/^[0-9a-f]{8}$/);
    // A known vector: SHA-256("abc") = ba7816bf...
    expect(hashSuffix('abc')).toBe('ba7816bf');
  });

  it('keeps a short base whole and appends _ and the suffix', () => {
    expect(nameWithHash('mcp_repo_issues_get', 'repo:issues/get')).toBe(`mcp_repo_issues_get_${sha256Prefix('repo:issues/get')}`);
  });

  it('cuts a long base to 55 characters, trims trailing underscores, and stays within 64', () => {
    const base = `mcp_s_${'a'.repeat(48)}_${'b'.repeat(40)}`;
    const name = nameWithHash(base, 'k');
    // 55 characters of the base end with "a" followed by "_": the trailing "_" is trimmed.
    expect(base.slice(0, 55).endsWith('_')).toBe(true);
    expect(name).toBe(`${base.slice(0, 54)}_${sha256Prefix('k')}`);
    expect(name.length).toBe(63);

    const long = `mcp_s_${'c'.repeat(100)}`;
    const cut = nameWithHash(long, 'k');
    expect(cut).toBe(`${long.slice(0, 55)}_${sha256Prefix('k')}`);
    expect(cut.length).toBe(MAX_TOOL_NAME_LENGTH);
  });
});

describe('ToolNameIndex naming examples from the checklist', () => {
  it('names GitHub-Prod + issues.get-by-id as mcp_github_prod_issues_get_by_id', () => {
    expect(nameOne('GitHub-Prod', ['issues.get-by-id']).get('issues.get-by-id')).toBe('mcp_github_prod_issues_get_by_id');
  });

  it('names repo + issues/get as mcp_repo_issues_get, keyed by the raw remote name', () => {
    const names = nameOne('repo', ['issues/get']);
    expect([...names]).toEqual([['issues/get', 'mcp_repo_issues_get']]);
  });

  it('bounds a 120-character tool name to a valid name of at most 64 characters with the hash of the key', () => {
    const remote = 't'.repeat(120);
    const name = nameOne('files', [remote]).get(remote)!;
    expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
    expect(isValidFunctionName(name)).toBe(true);
    expect(name).toBe(`mcp_files_${'t'.repeat(45)}_${sha256Prefix(`files:${remote}`)}`);
  });

  it('keeps a base of exactly 64 characters unhashed', () => {
    const remote = 'a'.repeat(64 - 'mcp_s_'.length);
    const name = nameOne('s', [remote]).get(remote)!;
    expect(name).toBe(`mcp_s_${remote}`);
    expect(name.length).toBe(64);
  });
});

describe('ToolNameIndex collisions within one server', () => {
  it('hashes every tool that normalises to the same name, not just the later ones', () => {
    const names = nameOne('srv', ['list-items', 'list.items', 'list_items', 'other']);
    expect(names.get('list-items')).toBe(`mcp_srv_list_items_${sha256Prefix('srv:list-items')}`);
    expect(names.get('list.items')).toBe(`mcp_srv_list_items_${sha256Prefix('srv:list.items')}`);
    expect(names.get('list_items')).toBe(`mcp_srv_list_items_${sha256Prefix('srv:list_items')}`);
    expect(names.get('other')).toBe('mcp_srv_other');
    expect(new Set(names.values()).size).toBe(4);
  });

  it('gives the same names whatever the order of the list', () => {
    const remote = ['Get', 'get', 'GET!', 'put', 'a/b', 'a.b', 'zz'];
    const expected = [...nameOne('srv', remote)].sort();
    for (let seed = 1; seed <= 20; seed++) {
      expect([...nameOne('srv', shuffled(remote, seed))].sort()).toEqual(expected);
    }
    expect(nameOne('srv', remote).get('zz')).toBe('mcp_srv_zz');
  });

  it('ignores a repeated remote name in one list', () => {
    const names = nameOne('srv', ['echo', 'echo']);
    expect([...names]).toEqual([['echo', 'mcp_srv_echo']]);
  });
});

describe('ToolNameIndex collisions across servers', () => {
  it('lets the first server keep the unsuffixed name and hashes the later one with its own key', () => {
    const index = new ToolNameIndex();
    const first = index.assign('github', 'github', ['prod_list_issues'], BUDGET);
    const second = index.assign('github_prod', 'github_prod', ['list_issues'], BUDGET);
    expect(first.names.get('prod_list_issues')).toBe('mcp_github_prod_list_issues');
    expect(second.names.get('list_issues')).toBe(`mcp_github_prod_list_issues_${sha256Prefix('github_prod:list_issues')}`);
    expect(second.dropped).toEqual([]);
  });

  it('keeps the first owner when the servers publish in the other order', () => {
    const index = new ToolNameIndex();
    const first = index.assign('github_prod', 'github_prod', ['list_issues'], BUDGET);
    const second = index.assign('github', 'github', ['prod_list_issues'], BUDGET);
    expect(first.names.get('list_issues')).toBe('mcp_github_prod_list_issues');
    expect(second.names.get('prod_list_issues')).toBe(`mcp_github_prod_list_issues_${sha256Prefix('github:prod_list_issues')}`);
  });

  it('retries with #n appended to the key when the hashed name is taken too', () => {
    const index = new ToolNameIndex();
    index.assign('a', 'a', ['b_c'], BUDGET);
    // Server "a_b" tool "c": its base is taken; let another server own its first hashed candidate too.
    const hashed = nameWithHash('mcp_a_b_c', 'a_b:c');
    const squatTool = hashed.slice('mcp_a_b_'.length);
    expect(index.assign('squat', 'a_b', [squatTool], BUDGET).names.get(squatTool)).toBe(hashed);
    const result = index.assign('a_b', 'a_b', ['c'], BUDGET);
    expect(result.names.get('c')).toBe(nameWithHash('mcp_a_b_c', 'a_b:c#0'));
    expect(result.names.get('c')).toBe(`mcp_a_b_c_${sha256Prefix('a_b:c#0')}`);
  });

  it('gives unique names across many servers whose names collide', () => {
    const index = new ToolNameIndex();
    const all: string[] = [];
    for (const [server, part, tools] of [
      ['a', 'a', ['b_c', 'b.c', 'x']],
      ['a_b', 'a_b', ['c', 'x']],
      ['A-B', 'a_b', ['c', 'x']],
      ['a b', 'a_b', ['c']],
    ] as const) {
      const { names, dropped } = index.assign(server, part, tools, BUDGET);
      expect(dropped).toEqual([]);
      all.push(...names.values());
    }
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((name) => isValidFunctionName(name))).toBe(true);
  });
});

describe('ToolNameIndex identities', () => {
  it('never changes a name once assigned, across additions, removals and reordering', () => {
    const index = new ToolNameIndex();
    const v1 = index.assign('srv', 'srv', ['alpha', 'beta'], BUDGET).names;
    expect(v1.get('alpha')).toBe('mcp_srv_alpha');
    // A new tool that collides with a retained one is hashed; the retained name stays.
    const v2 = index.assign('srv', 'srv', ['gamma', 'Alpha', 'beta', 'alpha'], BUDGET).names;
    expect(v2.get('alpha')).toBe('mcp_srv_alpha');
    expect(v2.get('beta')).toBe('mcp_srv_beta');
    expect(v2.get('gamma')).toBe('mcp_srv_gamma');
    expect(v2.get('Alpha')).toBe(`mcp_srv_alpha_${sha256Prefix('srv:Alpha')}`);
    // alpha removed, then the order changes.
    const v3 = index.assign('srv', 'srv', ['beta', 'Alpha'], BUDGET).names;
    expect([...v3.keys()].sort()).toEqual(['Alpha', 'beta']);
    expect(v3.get('Alpha')).toBe(v2.get('Alpha'));
    // alpha comes back with its old name.
    const v4 = index.assign('srv', 'srv', ['alpha', 'gamma', 'Alpha', 'beta'], BUDGET).names;
    expect(v4).toEqual(v2);
  });

  it('keeps a removed identity\'s name reserved so no other server can take it', () => {
    const index = new ToolNameIndex();
    index.assign('github', 'github', ['prod_list_issues'], BUDGET);
    index.assign('github', 'github', [], BUDGET);
    const other = index.assign('github_prod', 'github_prod', ['list_issues'], BUDGET).names;
    expect(other.get('list_issues')).toBe(`mcp_github_prod_list_issues_${sha256Prefix('github_prod:list_issues')}`);
    expect(index.assign('github', 'github', ['prod_list_issues'], BUDGET).names.get('prod_list_issues')).toBe(
      'mcp_github_prod_list_issues',
    );
  });

  it('frees every name of a server on release()', () => {
    const index = new ToolNameIndex();
    index.assign('github', 'github', ['prod_list_issues'], BUDGET);
    index.release('github');
    const other = index.assign('github_prod', 'github_prod', ['list_issues'], BUDGET).names;
    expect(other.get('list_issues')).toBe('mcp_github_prod_list_issues');
    // The released server starts over and now loses the collision.
    const again = index.assign('github', 'github', ['prod_list_issues'], BUDGET).names;
    expect(again.get('prod_list_issues')).toBe(`mcp_github_prod_list_issues_${sha256Prefix('github:prod_list_issues')}`);
  });

  it('treats release() of an unknown server as a no-op', () => {
    const index = new ToolNameIndex();
    index.assign('a', 'a', ['t'], BUDGET);
    index.release('nope');
    expect(index.assign('a', 'a', ['t'], BUDGET).names.get('t')).toBe('mcp_a_t');
  });

  it('throws NameBudgetError when retained identities exceed maxIdentities, and changes nothing', () => {
    const index = new ToolNameIndex();
    expect(index.assign('srv', 'srv', ['a', 'b', 'c'], 3).names.size).toBe(3);
    // "a" leaves, "d" arrives: four identities are retained (a, b, c, d) > 3.
    expect(() => index.assign('srv', 'srv', ['b', 'c', 'd'], 3)).toThrow(NameBudgetError);
    expect(() => index.assign('srv', 'srv', ['b', 'c', 'd'], 3)).toThrow(/identity budget \(3\) is exhausted/);
    // Nothing was committed: the retained names stand, and "d"'s name is free for another server.
    expect(index.assign('srv', 'srv', ['a', 'b', 'c'], 3).names.get('a')).toBe('mcp_srv_a');
    expect(index.assign('other', 'srv', ['d'], BUDGET).names.get('d')).toBe('mcp_srv_d');
    expect(index.assign('srv', 'srv', ['b', 'c', 'd'], 4).names.get('d')).toBe(`mcp_srv_d_${sha256Prefix('srv:d')}`);
  });

  it('does not claim names in a failed assignment', () => {
    const index = new ToolNameIndex();
    expect(() => index.assign('github', 'github', ['prod_list_issues', 'other'], 1)).toThrow(NameBudgetError);
    const other = index.assign('github_prod', 'github_prod', ['list_issues'], BUDGET).names;
    expect(other.get('list_issues')).toBe('mcp_github_prod_list_issues');
  });
});

describe('ToolNameIndex properties', () => {
  const remoteName = fc.oneof(
    fc.string({ minLength: 1, maxLength: 130 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.constantFrom('a', 'A', 'a-b', 'a.b', 'a_b', 'list', 'List', '9', '_', '中', 'get/item', 'get.item'),
  );
  const catalog = fc.uniqueArray(remoteName, { maxLength: 25 });

  it('assigns valid function names of at most 64 characters to every tool', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 70 }), catalog, (serverId, remote) => {
        const index = new ToolNameIndex();
        const { names, dropped } = index.assign(serverId, sanitizeNamePart(serverId), remote, BUDGET);
        expect(dropped).toEqual([]);
        expect(names.size).toBe(remote.length);
        for (const name of names.values()) {
          expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
          expect(isValidFunctionName(name)).toBe(true);
          expect(name.startsWith('mcp_')).toBe(true);
        }
        expect(new Set(names.values()).size).toBe(names.size);
      }),
      { numRuns: 300 },
    );
  });

  it('does not depend on the order of the list', () => {
    fc.assert(
      fc.property(catalog, fc.integer(), (remote, seed) => {
        const a = nameOne('srv', remote);
        const b = nameOne('srv', shuffled(remote, seed));
        expect([...b].sort()).toEqual([...a].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('keeps names unique across servers, even when server ids normalise alike', () => {
    const serverIds = fc.uniqueArray(fc.oneof(fc.constantFrom('a', 'A', 'a_b', 'a-b', 'github', 'github_prod'), fc.string()), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(serverIds, fc.array(catalog, { minLength: 6, maxLength: 6 }), (ids, catalogs) => {
        const index = new ToolNameIndex();
        const all: string[] = [];
        ids.forEach((id, i) => {
          const { names } = index.assign(id, sanitizeNamePart(id), catalogs[i]!, BUDGET);
          all.push(...names.values());
        });
        expect(new Set(all).size).toBe(all.length);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps every assigned name when the catalog is later changed', () => {
    fc.assert(
      fc.property(catalog, catalog, (first, second) => {
        const index = new ToolNameIndex();
        const before = index.assign('srv', 'srv', first, BUDGET).names;
        const after = index.assign('srv', 'srv', second, BUDGET).names;
        for (const [remote, name] of after) {
          if (before.has(remote)) expect(name).toBe(before.get(remote));
        }
        expect(new Set(after.values()).size).toBe(after.size);
        const back = index.assign('srv', 'srv', first, BUDGET).names;
        expect(back).toEqual(before);
      }),
      { numRuns: 300 },
    );
  });
});
