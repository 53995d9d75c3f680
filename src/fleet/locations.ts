/**
 * Where the editors keep their MCP server lists, per platform: the project files under
 * a working directory and the user files under the home and application-data folders.
 */
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { McpConfigDialect } from './dialects.js';

/** The editor a config file belongs to. */
export type McpConfigEditor = 'claude_desktop' | 'claude_code' | 'vscode' | 'cursor' | 'windsurf' | 'gemini_cli';

/** One config file that exists. */
export interface McpConfigLocation {
  path: string;
  editor: McpConfigEditor;
  dialect: McpConfigDialect;
  /** `project`: under the working directory; `user`: the user's own, for every project. */
  scope: 'project' | 'user';
}

/** Where to look. */
export interface McpConfigSearchOptions {
  /** The project folder. Default `process.cwd()`. */
  cwd?: string;
  /** The user's home folder. Default `os.homedir()`. */
  home?: string;
  /** Which platform's rules apply (paths are still joined with the host's `node:path`). Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** For `APPDATA` (Windows) and `XDG_CONFIG_HOME` (Linux). Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** The folder applications keep their settings in: where Claude Desktop and VS Code put theirs. */
function applicationData(home: string, platform: NodeJS.Platform, env: Record<string, string | undefined>): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support');
  if (platform === 'win32') return nonEmpty(env.APPDATA) ?? join(home, 'AppData', 'Roaming');
  return nonEmpty(env.XDG_CONFIG_HOME) ?? join(home, '.config');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The MCP config files that exist, project ones (in `cwd` itself) first, then user
 * ones: Claude Code (`.mcp.json`; `~/.claude.json`), VS Code (`.vscode/mcp.json`;
 * `mcp.json` in `Code/User` and `Code - Insiders/User` of the application-data folder),
 * Cursor (`.cursor/mcp.json`; `~/.cursor/mcp.json`), Gemini CLI (`.gemini/settings.json`;
 * `~/.gemini/settings.json`), Claude Desktop (`Claude/claude_desktop_config.json` in the
 * application-data folder: `~/Library/Application Support` on macOS, `%APPDATA%` on
 * Windows, `$XDG_CONFIG_HOME` or `~/.config` elsewhere) and Windsurf
 * (`~/.codeium/windsurf/mcp_config.json`). A path found twice (a home that is also the
 * project) is listed once, as a project file.
 */
export async function findMcpConfigs(options: McpConfigSearchOptions = {}): Promise<McpConfigLocation[]> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const home = resolve(options.home ?? homedir());
  const platform = options.platform ?? process.platform;
  const appData = applicationData(home, platform, options.env ?? process.env);
  const candidates: McpConfigLocation[] = [
    { path: join(cwd, '.mcp.json'), editor: 'claude_code', dialect: 'claude_code', scope: 'project' },
    { path: join(cwd, '.vscode', 'mcp.json'), editor: 'vscode', dialect: 'vscode', scope: 'project' },
    { path: join(cwd, '.cursor', 'mcp.json'), editor: 'cursor', dialect: 'cursor', scope: 'project' },
    { path: join(cwd, '.gemini', 'settings.json'), editor: 'gemini_cli', dialect: 'gemini_cli', scope: 'project' },
    { path: join(appData, 'Claude', 'claude_desktop_config.json'), editor: 'claude_desktop', dialect: 'claude_desktop', scope: 'user' },
    { path: join(home, '.claude.json'), editor: 'claude_code', dialect: 'claude_code', scope: 'user' },
    { path: join(appData, 'Code', 'User', 'mcp.json'), editor: 'vscode', dialect: 'vscode', scope: 'user' },
    { path: join(appData, 'Code - Insiders', 'User', 'mcp.json'), editor: 'vscode', dialect: 'vscode', scope: 'user' },
    { path: join(home, '.cursor', 'mcp.json'), editor: 'cursor', dialect: 'cursor', scope: 'user' },
    { path: join(home, '.codeium', 'windsurf', 'mcp_config.json'), editor: 'windsurf', dialect: 'windsurf', scope: 'user' },
    { path: join(home, '.gemini', 'settings.json'), editor: 'gemini_cli', dialect: 'gemini_cli', scope: 'user' },
  ];
  const seen = new Set<string>();
  const unique = candidates.filter((candidate) => !seen.has(candidate.path) && seen.add(candidate.path));
  const exists = await Promise.all(unique.map((candidate) => isFile(candidate.path)));
  return unique.filter((_, index) => exists[index]);
}
