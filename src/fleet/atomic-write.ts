/**
 * Atomic replacement of a config file: a reader (an editor, another host) sees the old
 * file or the new one, never half of either, even after a crash or a power loss.
 */
import { randomBytes } from 'node:crypto';
import { open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

async function targetOf(path: string): Promise<string> {
  try {
    // A symlinked config (a dotfiles repository) stays a symlink: the file it points at is replaced.
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return path;
    throw error;
  }
}

async function modeOf(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Writes `text` (UTF-8) to `path` atomically: into a temporary file in the same folder
 * (`.<name>.<pid>.<random>.tmp`), flushed to disk, given the existing file's mode (so a
 * 0600 file stays 0600; a new file gets the default mode under the umask), then renamed
 * over the target. A symlink is followed and the file it points at replaced. On failure
 * the temporary file is removed and the target is left as it was.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const target = await targetOf(path);
  const folder = dirname(target);
  const temporary = join(folder, `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = await modeOf(target);
  try {
    const handle = await open(temporary, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(text, 'utf8');
      // `open` applies the umask; an existing file's mode is restored exactly.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(folder);
}

/** Makes the rename itself durable where the platform allows it (not on Windows, where opening a folder fails). */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Best effort: the data is already on disk; only the rename's durability is at stake.
  }
}
