/**
 * The environment of a stdio server: by default only platform essentials, so a child
 * cannot read the host's secrets; the server's own `env` on top; the whole parent
 * environment only with `inheritEnv: true`.
 */

/** Variables copied from the host when present (the Anda allowlist). */
export const ENV_ALLOWLIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LC_ALL',
  'TERM',
  'TMPDIR',
  'TZ',
  'SystemRoot',
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
];

/** The child environment for a server. */
export function childEnvironment(
  serverEnv: Record<string, string>,
  inheritEnv: boolean,
  parent: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (inheritEnv) {
    for (const [key, value] of Object.entries(parent)) if (value !== undefined) env[key] = value;
  } else {
    for (const key of ENV_ALLOWLIST) {
      const value = parent[key];
      if (value !== undefined) env[key] = value;
    }
  }
  return Object.assign(env, serverEnv);
}
