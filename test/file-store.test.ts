/**
 * The file credential store's lock, with real files: a slow holder keeps its lock, a
 * crashed holder's lock is taken over once stale, and a release removes only its own.
 * (test/oauth.test.ts shares one store between two real processes.)
 */
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileMcpCredentialStore } from '../src/index.js';

const key = { serverId: 'api', endpoint: 'https://mcp.example.com/mcp' };

function stores(options: { staleLockMs: number; lockTimeoutMs: number }): [FileMcpCredentialStore, FileMcpCredentialStore, string] {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-fleet-lock-'));
  const make = () => new FileMcpCredentialStore({ directory, ...options });
  const lock = `${make().fileOf(key)}.lock`;
  return [make(), make(), lock];
}

describe('FileMcpCredentialStore lock', () => {
  it('keeps the lock of a holder that takes longer than staleLockMs, and hands it over on release', async () => {
    const [first, second] = stores({ staleLockMs: 300, lockTimeoutMs: 900 });
    const release = await first.acquireRefreshGuard(key);
    // Three stale periods pass while the first holder works; the second must not take over.
    await expect(second.acquireRefreshGuard(key)).rejects.toThrow(/Timed out waiting for the credential lock of MCP server "api"/);
    await release();
    const again = await second.acquireRefreshGuard(key);
    await again();
  });

  it('takes over the lock of a holder that crashed, once it is stale', async () => {
    const [, store, lock] = stores({ staleLockMs: 300, lockTimeoutMs: 5_000 });
    writeFileSync(lock, '999999 crashed\n');
    const past = new Date(Date.now() - 60_000);
    utimesSync(lock, past, past);
    const release = await store.acquireRefreshGuard(key);
    expect(readFileSync(lock, 'utf8')).not.toContain('crashed');
    await release();
    expect(existsSync(lock)).toBe(false);
  });

  it('never removes a lock that is no longer its own', async () => {
    const [store, , lock] = stores({ staleLockMs: 300, lockTimeoutMs: 1_000 });
    const release = await store.acquireRefreshGuard(key);
    // Another process took the lock over (say this one was frozen past staleLockMs).
    writeFileSync(lock, '424242 someone-else\n');
    await release();
    expect(readFileSync(lock, 'utf8')).toContain('someone-else');
  });
});
