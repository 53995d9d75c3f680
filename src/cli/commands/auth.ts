/**
 * `mcp-fleet auth <server> [--logout]`: the headless OAuth flow of a remote server. It
 * prints the authorization URL (open it in any browser, on any machine), then completes
 * with whichever comes first: the browser reaching the loopback redirect URI on this
 * machine (directly, or through `ssh -N -L <port>:127.0.0.1:<port>`), or the redirect URL
 * pasted on stdin (the browser shows it in the address bar when nothing listens). Grants
 * are kept in the user's config folder (see paths.ts), owner-only, so the next command
 * needs no prompt. `--logout` forgets the server's grant.
 *
 * JSON: `{ url }` on its own line once the flow starts, then `{ server, authorized: true, toolCount }`
 * (or `{ server, loggedOut: true }`).
 */
import { createInterface } from 'node:readline';
import { startOAuthCallbackListener, type OAuthCallbackListener } from '../../mcp/auth/loopback.js';
import type { McpServerManager } from '../../fleet/manager.js';
import { EXIT, type ExitCode, usageError } from '../errors.js';
import type { CommandContext } from '../context.js';

/** The loopback listener for a redirect URI on this machine, or `undefined` (not loopback, port busy). */
async function listenerFor(redirectUri: string | undefined): Promise<OAuthCallbackListener | undefined> {
  if (redirectUri === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.port === '') return undefined;
  try {
    return await startOAuthCallbackListener({ port: Number(url.port), path: url.pathname });
  } catch {
    return undefined;
  }
}

/** Whether a pasted line can be the end of the flow: a redirect URL carrying `code` or `error`, or a bare code. */
function looksLikeRedirect(text: string): boolean {
  try {
    const url = new URL(text);
    return url.searchParams.has('code') || url.searchParams.has('error');
  } catch {
    return /^[\w.~-]{8,}$/.test(text);
  }
}

/**
 * The redirect URL (or code) pasted on stdin: a line that cannot be one is answered with
 * a hint and the next line is read. When stdin ends, the flow waits for the listener if
 * there is one, else fails.
 */
function pastedRedirect(context: CommandContext, listening: boolean): { line: Promise<string>; close: () => void } {
  const lines = createInterface({ input: context.io.stdin, terminal: false });
  const line = new Promise<string>((resolve, reject) => {
    lines.on('line', (typed) => {
      const text = typed.trim();
      if (text === '') return;
      if (looksLikeRedirect(text)) resolve(text);
      else context.output.note('That is not the address the browser ended on (it holds ?code=...); paste that address, then press Enter.');
    });
    lines.on('close', () => {
      if (!listening) reject(new Error('stdin ended before the redirect URL was pasted; paste it, or let the browser reach the loopback redirect URI'));
    });
  });
  line.catch(() => {});
  return { line, close: () => lines.close() };
}

function redirectUriOf(manager: McpServerManager, serverId: string): string | undefined {
  const transport = manager.serverConfig(serverId).transport;
  if (transport.type === 'stdio' || transport.oauth?.flow !== 'authorization_code') return undefined;
  return transport.oauth.redirectUri;
}

export async function auth(context: CommandContext, serverId: unknown): Promise<ExitCode> {
  const id = String(serverId);
  const fleet = await context.fleet();
  fleet.require(id);
  const { manager } = fleet;
  const { output, signal } = context;
  const transport = manager.serverConfig(id).transport;
  if (transport.type === 'stdio') throw usageError(`MCP server "${id}" runs over stdio; OAuth applies only to HTTP and SSE servers.`);
  if (transport.oauth === undefined) throw usageError(`MCP server "${id}" has no \`oauth\` in its configuration; add { "oauth": { "flow": "authorization_code", "redirectUri": "http://127.0.0.1:8765/callback" } } to it.`);

  // No progress line: its failure (authorization required) is what this command is about to fix.
  const [outcome] = await fleet.start([id], signal, { progress: false });
  if (context.options.logout === true) {
    // A server that started, or one held waiting for authorization: either way its grant can be cleared.
    if (!outcome!.ok && !manager.status(id).authorizationRequired) throw outcome!.error;
    await manager.clearCredentials(id);
    if (output.json) output.printJson({ server: id, loggedOut: true });
    else output.note(`signed out of ${id}; the next use asks for authorization again`);
    return EXIT.ok;
  }
  if (outcome!.ok) {
    if (output.json) output.printJson({ server: id, authorized: true, toolCount: manager.status(id).toolCount });
    else output.note(`${id} is already authorized (${manager.status(id).toolCount} tools); mcp-fleet auth ${id} --logout signs out`);
    return EXIT.ok;
  }
  if (!manager.status(id).authorizationRequired) throw outcome!.error;

  const url = await manager.beginAuthorization(id);
  const listener = await listenerFor(redirectUriOf(manager, id));
  const pasted = pastedRedirect(context, listener !== undefined);
  if (output.json) {
    output.io.stdout.write(`${JSON.stringify({ url })}\n`);
  } else {
    output.note(`Open this URL in a browser, on any machine, and approve access for ${id}:`);
    output.print(url);
    output.note(
      listener === undefined
        ? 'Then paste here the URL the browser ends up on (its address bar), and press Enter.'
        : `Waiting for the browser at ${listener.redirectUri} (from another machine: ssh -N -L ${new URL(listener.redirectUri).port}:127.0.0.1:${new URL(listener.redirectUri).port} <this host>), or paste the URL the browser ends up on and press Enter.`,
    );
  }
  try {
    const aborted = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    const redirect = await Promise.race([pasted.line, ...(listener === undefined ? [] : [listener.redirect]), aborted]);
    await manager.completeAuthorization(id, redirect, { signal });
  } finally {
    pasted.close();
    await listener?.close();
  }
  const toolCount = manager.status(id).toolCount;
  if (output.json) output.printJson({ server: id, authorized: true, toolCount });
  else output.note(`${id} is authorized (${toolCount} tools); the grant is kept for the next commands`);
  return EXIT.ok;
}
