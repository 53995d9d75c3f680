/**
 * `mcp-fleet serve (--stdio | --http)`: the fleet of the config file served as one MCP
 * server. Every server starts and is supervised; edits of the file apply live (unless
 * `--no-watch`); SIGTERM or SIGINT drain: calls in flight get `--drain-ms` to finish,
 * then sessions close and every server stops. Over stdio, stdout is the protocol's:
 * everything the command says goes to stderr.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { FileMcpCredentialStore } from '../../mcp/auth/file-store.js';
import { McpServerManager } from '../../fleet/manager.js';
import { McpGateway } from '../../gateway/gateway.js';
import type { GatewayNaming } from '../../gateway/names.js';
import type { McpGatewayProfile } from '../../gateway/profiles.js';
import type { GatewayExposure } from '../../gateway/view.js';
import type { McpGatewayOAuthOptions } from '../../gateway/oauth-resource.js';
import { serveGatewayHttp } from '../../gateway/serve-http.js';
import type { CommandContext } from '../context.js';
import { serverSource } from '../context.js';
import { EXIT, usageError, type ExitCode } from '../errors.js';
import { credentialsFolder } from '../paths.js';

interface ServeOptions {
  stdio?: boolean;
  http?: boolean;
  host?: string;
  port?: number;
  path?: string;
  names?: GatewayNaming;
  expose?: GatewayExposure;
  profile?: string;
  watch?: boolean;
  drainMs?: number;
  tokenFile?: string;
  oauthIssuer?: string;
  oauthJwksUri?: string;
  oauthResource?: string;
  oauthScope?: string[];
}

/** `--oauth-*` as the gateway's OAuth options, or none without `--oauth-issuer`. */
function oauthOptions(options: ServeOptions): McpGatewayOAuthOptions | undefined {
  if (options.oauthIssuer === undefined) {
    if (options.oauthJwksUri !== undefined || options.oauthResource !== undefined || options.oauthScope !== undefined) {
      throw usageError('--oauth-jwks-uri, --oauth-resource and --oauth-scope need --oauth-issuer (the authorization server whose tokens are accepted).');
    }
    return undefined;
  }
  return {
    issuer: options.oauthIssuer,
    ...(options.oauthJwksUri === undefined ? {} : { jwksUri: options.oauthJwksUri }),
    ...(options.oauthResource === undefined ? {} : { resource: options.oauthResource }),
    ...(options.oauthScope === undefined ? {} : { requiredScopes: options.oauthScope }),
  };
}

/** The gateway token: `--token-file` (its first line), else `MCP_FLEET_GATEWAY_TOKEN`. */
async function gatewayToken(context: CommandContext, file: string | undefined): Promise<string | undefined> {
  if (file !== undefined) {
    const path = resolve(context.io.cwd, file);
    const token = (await readFile(path, 'utf8').catch(() => {
      throw usageError(`--token-file ${file}: cannot read ${path}.`);
    })).split(/\r?\n/)[0]?.trim();
    if (token === undefined || token === '') throw usageError(`--token-file ${file}: the file's first line is empty; put the token there.`);
    return token;
  }
  const fromEnv = context.io.env.MCP_FLEET_GATEWAY_TOKEN;
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** Every server's resources are relayed: the gateway's clients ask for them, not the file. */
async function allowResources(manager: McpServerManager, ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    const config = manager.serverConfig(id);
    if (config.resources !== true) await manager.updateServer(id, { ...config, resources: true });
  }
}

export async function serve(context: CommandContext): Promise<ExitCode> {
  const options = context.options as ServeOptions & CommandContext['options'];
  if (options.stdio === true && options.http === true) throw usageError('serve takes --stdio or --http, not both.');
  if (options.stdio !== true && options.http !== true) throw usageError('serve needs --stdio (for a client that launches it) or --http (to listen on a port).');
  const { io, output } = context;
  const oauth = oauthOptions(options);
  // With OAuth, a token in the environment is not the gateway's: only --token-file conflicts.
  const token = oauth !== undefined && options.tokenFile === undefined ? undefined : await gatewayToken(context, options.tokenFile);
  const source = await serverSource(io, output, { ...options, adHoc: [] });
  const manager = new McpServerManager({
    ...(source.file === undefined ? {} : { file: source.file }),
    env: io.env,
    credentialStore: new FileMcpCredentialStore({ directory: credentialsFolder(io.env) }),
    gracePeriodMs: 2_000,
    // What a server asks its client during a call goes to the gateway's client that made it.
    relayServerRequests: true,
  });
  const profiles = () => manager.configSection('profiles') as Record<string, McpGatewayProfile> | undefined;
  const gateway = new McpGateway(manager, { names: options.names ?? 'auto', expose: options.expose ?? 'all', profiles: profiles() });
  if (options.profile !== undefined && options.stdio !== true) throw usageError('--profile is for --stdio; over HTTP a profile is served at <path>/<profile>.');
  // An unknown profile is refused before any server starts.
  if (options.profile !== undefined) gateway.factoryFor(options.profile);
  manager.on('notification', (serverId, notification) => gateway.relay(serverId, notification));
  manager.on('status', (status) => gateway.serverChanged(status.id));
  manager.on('reload', (reload) => {
    try {
      gateway.setProfiles(profiles());
    } catch (error) {
      output.note(`profiles not changed: ${(error as Error).message}`);
    }
    void allowResources(manager, [...reload.added, ...reload.updated].filter((id) => manager.serverIds().includes(id)));
    output.note(`config reloaded: ${reload.added.length} added, ${reload.updated.length} updated, ${reload.removed.length} removed`);
  });
  manager.on('reloadError', (error) => output.note(`config edit not applied: ${error.message}`));
  let http: Awaited<ReturnType<typeof serveGatewayHttp>> | undefined;
  try {
    await allowResources(manager, manager.serverIds());
    const outcomes = await manager.startAll({ signal: context.signal });
    for (const outcome of outcomes) if (!outcome.ok) output.note(`server "${outcome.id}" did not start: ${outcome.error?.message ?? 'failed'}`);
    manager.startMonitoring();
    if (options.watch !== false && source.file !== undefined) manager.watch();
    const stopped = new Promise<void>((done) => {
      if (context.signal.aborted) done();
      context.signal.addEventListener('abort', () => done(), { once: true });
      // A client that launched the gateway over stdio ends it by closing its stdin.
      if (options.stdio === true) io.stdin.once('end', () => done());
    });
    if (options.stdio === true) {
      gateway.serveStdio(options.profile);
      output.note(`serving ${manager.serverIds().length} servers on stdio${options.profile === undefined ? '' : ` (profile "${options.profile}")`}`);
    } else {
      http = await serveGatewayHttp(gateway, {
        ...(options.host === undefined ? {} : { host: options.host }),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(options.path === undefined ? {} : { path: options.path }),
        ...(token === undefined ? {} : { token }),
        ...(oauth === undefined ? {} : { oauth }),
        health: () => manager.statuses().map((status) => ({ id: status.id, state: status.state, required: manager.serverConfig(status.id).required === true })),
      });
      io.stderr.write(`${http.url}\n`);
    }
    await stopped;
    const left = await gateway.drain(options.drainMs ?? 10_000);
    if (left > 0) output.note(`${left} calls still running after --drain-ms; they are cancelled`);
    return EXIT.ok;
  } finally {
    await gateway.close();
    await http?.close();
    await manager.shutdown();
  }
}
