/**
 * Where the command keeps its own files: the platform's per-user configuration folder
 * (`$XDG_CONFIG_HOME/mcp-fleet` or `~/.config/mcp-fleet` on Linux, `~/Library/Application
 * Support/mcp-fleet` on macOS, `%APPDATA%\mcp-fleet` on Windows). OAuth credentials live
 * in its `credentials` folder, owner-only (the file store makes it 0700).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { CliIO } from './output.js';

export function configFolder(env: CliIO['env'], platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'mcp-fleet');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'mcp-fleet');
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg !== undefined && xdg !== '' ? xdg : join(home, '.config'), 'mcp-fleet');
}

export function credentialsFolder(env: CliIO['env']): string {
  return join(configFolder(env), 'credentials');
}
