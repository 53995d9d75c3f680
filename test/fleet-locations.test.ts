/**
 * Where each editor keeps its MCP config, per platform: every rule checked in a fake
 * home (and a fake APPDATA / XDG_CONFIG_HOME) in a temporary folder, so the macOS and
 * Windows rules run on any host.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findMcpConfigs, type McpConfigLocation } from '../src/fleet/locations.js';
import { tempDir } from './helpers.js';

function touch(...parts: string[]): string {
  const path = join(...parts);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '{ "mcpServers": {} }\n');
  return path;
}

function summary(locations: McpConfigLocation[]): [string, string, string, string][] {
  return locations.map((location) => [location.path, location.editor, location.dialect, location.scope]);
}

/** The user files every platform shares (under the home folder itself). */
function homeFiles(home: string): [string, string, string, string][] {
  return [
    [touch(home, '.claude.json'), 'claude_code', 'claude_code', 'user'],
    [touch(home, '.cursor', 'mcp.json'), 'cursor', 'cursor', 'user'],
    [touch(home, '.codeium', 'windsurf', 'mcp_config.json'), 'windsurf', 'windsurf', 'user'],
    [touch(home, '.gemini', 'settings.json'), 'gemini_cli', 'gemini_cli', 'user'],
  ];
}

describe('findMcpConfigs', () => {
  it('lists the project files of the working directory first, then the user files (Linux)', async () => {
    const root = tempDir();
    const home = join(root, 'home');
    const project = join(root, 'project');
    const projectFiles: [string, string, string, string][] = [
      [touch(project, '.mcp.json'), 'claude_code', 'claude_code', 'project'],
      [touch(project, '.vscode', 'mcp.json'), 'vscode', 'vscode', 'project'],
      [touch(project, '.cursor', 'mcp.json'), 'cursor', 'cursor', 'project'],
      [touch(project, '.gemini', 'settings.json'), 'gemini_cli', 'gemini_cli', 'project'],
    ];
    const desktop = touch(home, '.config', 'Claude', 'claude_desktop_config.json');
    const code = touch(home, '.config', 'Code', 'User', 'mcp.json');
    const insiders = touch(home, '.config', 'Code - Insiders', 'User', 'mcp.json');
    const [claude, cursor, windsurf, gemini] = homeFiles(home);
    const found = await findMcpConfigs({ cwd: project, home, platform: 'linux', env: {} });
    expect(summary(found)).toEqual([
      ...projectFiles,
      [desktop, 'claude_desktop', 'claude_desktop', 'user'],
      claude,
      [code, 'vscode', 'vscode', 'user'],
      [insiders, 'vscode', 'vscode', 'user'],
      cursor,
      windsurf,
      gemini,
    ]);
  });

  it('honours XDG_CONFIG_HOME on Linux', async () => {
    const root = tempDir();
    const home = join(root, 'home');
    const xdg = join(root, 'xdg');
    touch(home, '.config', 'Claude', 'claude_desktop_config.json');
    const desktop = touch(xdg, 'Claude', 'claude_desktop_config.json');
    const code = touch(xdg, 'Code', 'User', 'mcp.json');
    const found = await findMcpConfigs({ cwd: join(root, 'empty'), home, platform: 'linux', env: { XDG_CONFIG_HOME: xdg } });
    expect(found.map((location) => location.path)).toEqual([desktop, code]);
  });

  it('uses ~/Library/Application Support on macOS', async () => {
    const root = tempDir();
    const home = join(root, 'home');
    const support = join(home, 'Library', 'Application Support');
    const desktop = touch(support, 'Claude', 'claude_desktop_config.json');
    const code = touch(support, 'Code', 'User', 'mcp.json');
    // The Linux locations are not macOS's.
    touch(home, '.config', 'Code', 'User', 'mcp.json');
    const [claude, cursor, windsurf, gemini] = homeFiles(home);
    const found = await findMcpConfigs({ cwd: join(root, 'empty'), home, platform: 'darwin', env: { XDG_CONFIG_HOME: join(home, '.config') } });
    expect(summary(found)).toEqual([[desktop, 'claude_desktop', 'claude_desktop', 'user'], claude, [code, 'vscode', 'vscode', 'user'], cursor, windsurf, gemini]);
  });

  it('uses %APPDATA% on Windows, or AppData/Roaming under the home when it is unset', async () => {
    const root = tempDir();
    const home = join(root, 'home');
    const appData = join(root, 'roaming');
    const desktop = touch(appData, 'Claude', 'claude_desktop_config.json');
    const insiders = touch(appData, 'Code - Insiders', 'User', 'mcp.json');
    const found = await findMcpConfigs({ cwd: join(root, 'empty'), home, platform: 'win32', env: { APPDATA: appData } });
    expect(summary(found)).toEqual([
      [desktop, 'claude_desktop', 'claude_desktop', 'user'],
      [insiders, 'vscode', 'vscode', 'user'],
    ]);
    const fallback = touch(home, 'AppData', 'Roaming', 'Code', 'User', 'mcp.json');
    const withoutAppData = await findMcpConfigs({ cwd: join(root, 'empty'), home, platform: 'win32', env: {} });
    expect(withoutAppData.map((location) => location.path)).toEqual([fallback]);
  });

  it('lists a file once when the project is the home folder, as a project file', async () => {
    const home = tempDir();
    const cursor = touch(home, '.cursor', 'mcp.json');
    const gemini = touch(home, '.gemini', 'settings.json');
    const found = await findMcpConfigs({ cwd: home, home, platform: 'linux', env: {} });
    expect(summary(found)).toEqual([
      [cursor, 'cursor', 'cursor', 'project'],
      [gemini, 'gemini_cli', 'gemini_cli', 'project'],
    ]);
  });

  it('skips folders named like config files, and finds nothing in an empty home', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.mcp.json'));
    expect(await findMcpConfigs({ cwd: root, home: join(root, 'nobody'), platform: 'linux', env: {} })).toEqual([]);
  });
});
