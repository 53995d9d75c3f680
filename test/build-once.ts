/**
 * Vitest global set-up: builds the package (dist/) once before the tests that run it the
 * way a user does (the command, the package imported by name), unless dist/ is newer
 * than every source file already. One build for the whole run: two test files building
 * at once would write over each other.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newestSource(folder: string): number {
  let newest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtAt(): number {
  try {
    return statSync(join(root, 'dist', 'cli', 'main.js')).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  if (builtAt() > Math.max(newestSource(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs)) return;
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
