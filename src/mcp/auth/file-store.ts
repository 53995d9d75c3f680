/**
 * A credential store on disk: one JSON file per server and endpoint under a folder,
 * readable by the owner only (0600, folder 0700), written atomically (a temporary file
 * renamed into place), with a lock file per key so that two processes never refresh the
 * same grant at once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inspect } from 'node:util';
import { sanitizeNamePart } from '../catalog/naming.js';
import {
  credentialKeyId,
  type McpCredentialKey,
  type McpCredentialStore,
  type McpRefreshGuardRelease,
  type McpStoredCredentials,
} from './store.js';

export interface FileMcpCredentialStoreOptions {
  /** The folder holding the files; created (0700) if missing. */
  directory: string;
  /**
   * A lock not refreshed for this long is taken to be left by a crashed process and
   * removed (a live holder refreshes it every third of this). Default 30,000 ms.
   */
  staleLockMs?: number;
  /** Longest wait for a lock before giving up. Default 60,000 ms. */
  lockTimeoutMs?: number;
}

const LOCK_POLL_MS = 25;

export class FileMcpCredentialStore implements McpCredentialStore {
  readonly directory: string;
  private readonly staleLockMs: number;
  private readonly lockTimeoutMs: number;

  constructor(options: FileMcpCredentialStoreOptions) {
    this.directory = options.directory;
    this.staleLockMs = options.staleLockMs ?? 30_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 60_000;
  }

  /** The file of a key: the server id for people, a hash of the key for uniqueness. */
  fileOf(key: McpCredentialKey): string {
    const hash = createHash('sha256').update(credentialKeyId(key)).digest('hex').slice(0, 16);
    return join(this.directory, `${sanitizeNamePart(key.serverId)}-${hash}.json`);
  }

  private async ensureDirectory(): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
  }

  async load(key: McpCredentialKey): Promise<McpStoredCredentials | undefined> {
    let text: string;
    try {
      text = await readFile(this.fileOf(key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = JSON.parse(text) as { key?: McpCredentialKey; credentials?: McpStoredCredentials };
    // The file names a hash; the key inside proves it is this key's grant.
    if (parsed.key?.serverId !== key.serverId || parsed.key.endpoint !== key.endpoint) return undefined;
    return parsed.credentials;
  }

  async save(key: McpCredentialKey, credentials: McpStoredCredentials): Promise<void> {
    await this.ensureDirectory();
    const file = this.fileOf(key);
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ key, credentials }));
        // On disk before the rename: after a power loss the file is the old grant or the new one, never empty.
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async clear(key: McpCredentialKey): Promise<void> {
    await rm(this.fileOf(key), { force: true });
  }

  /**
   * An exclusive lock file per key (`<file>.lock`), shared by every process using the
   * folder. It holds a token of its holder, who keeps it fresh while holding it and
   * removes it on release only if it is still its own.
   */
  async acquireRefreshGuard(key: McpCredentialKey): Promise<McpRefreshGuardRelease> {
    await this.ensureDirectory();
    const lock = `${this.fileOf(key)}.lock`;
    const token = `${process.pid} ${randomBytes(8).toString('hex')}`;
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        const handle = await open(lock, 'wx', 0o600);
        await handle.writeFile(`${token}\n`);
        await handle.close();
        return this.holding(lock, token);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (await this.removeIfStale(lock)) continue;
      if (Date.now() > deadline) {
        throw new Error(`Timed out waiting for the credential lock of MCP server "${key.serverId}" (${lock}).`);
      }
      await sleep(LOCK_POLL_MS);
    }
  }

  /** The release of a held lock; meanwhile its time is refreshed, so a slow holder is never taken for a crashed one. */
  private holding(lock: string, token: string): McpRefreshGuardRelease {
    const heartbeat = setInterval(() => {
      const now = new Date();
      void utimes(lock, now, now).catch(() => {});
    }, this.staleLockMs / 3);
    heartbeat.unref();
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      const holder = await readFile(lock, 'utf8').catch(() => '');
      if (holder.trim() === token) await unlink(lock).catch(() => {});
    };
  }

  /**
   * Removes a lock whose holder stopped refreshing it (it crashed); `true` when the lock
   * may be free now. The lock is first moved aside and checked to be the stale one, so
   * two waiters cannot both remove it, one of them a fresh lock taken meanwhile.
   */
  private async removeIfStale(lock: string): Promise<boolean> {
    const seen = await stat(lock).catch(() => undefined);
    if (seen === undefined) return true;
    if (Date.now() - seen.mtimeMs <= this.staleLockMs) return false;
    const aside = `${lock}.${randomBytes(6).toString('hex')}.stale`;
    try {
      await rename(lock, aside);
    } catch {
      return true;
    }
    const moved = await stat(aside).catch(() => undefined);
    if (moved?.ino !== seen.ino) {
      // A fresh lock replaced the stale one before the move: give it back.
      await link(aside, lock).catch(() => {});
    }
    await unlink(aside).catch(() => {});
    return moved?.ino === seen.ino;
  }

  [inspect.custom](): string {
    return `FileMcpCredentialStore { directory: ${JSON.stringify(this.directory)} }`;
  }
}
