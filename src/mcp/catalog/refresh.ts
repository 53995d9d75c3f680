/**
 * Catalog refresh: connect if needed, list under the budgets, then publish. Servers are
 * fetched concurrently but published in server-id order, so response timing never
 * decides which server keeps an unsuffixed name. Each server's refresh holds its
 * refresh lock through publication, so concurrent callers share one refresh; a refresh
 * that fails or is cancelled re-arms the dirty flag, and a removed server never publishes.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { inSlices } from '../../core/slices.js';
import { checkServerMeta, listAllTools, McpCatalogError, publishableTools } from './catalog.js';
import { LeftOutTools, warnLeftOut } from './left-out.js';
import type { McpLeftOutTools } from '../config/policy.js';
import { asError, McpFleetError, McpServerRemovedError, type McpServerFailure } from '../errors.js';
import { isSessionExpired } from '../session/errors-sdk.js';
import type { ServerRegistration } from '../registration.js';
import { OperationSignal } from '../deadline.js';
import { redactError } from '../config/redaction.js';
import { buildRoutes, type RouteTable } from './routes.js';
import type { McpSession, ServerMeta } from '../session/session.js';

interface FetchedCatalog {
  session: McpSession;
  tools: Tool[];
  meta: ServerMeta;
  /** The tools of the listing left out for breaking a per-tool budget. */
  leftOut: McpLeftOutTools | undefined;
}

async function fetchCatalog(registration: ServerRegistration, signal: AbortSignal): Promise<FetchedCatalog> {
  try {
    return await fetchCatalogOnce(registration, signal);
  } catch (error) {
    const session = (error as { session?: McpSession }).session;
    if (session === undefined || !(session.expired || isSessionExpired(error, session.transport.sessionId))) throw error;
    // A legacy HTTP server forgot the session: initialise once more, then list again.
    registration.expire(session);
    return fetchCatalogOnce(registration, signal);
  }
}

async function fetchCatalogOnce(registration: ServerRegistration, signal: AbortSignal): Promise<FetchedCatalog> {
  const { config } = registration;
  const session = await registration.ensureSession(signal);
  // Cleared once the session is in place (a new session marks the catalog dirty); a change
  // notified while listing sets it again and is not lost.
  registration.dirty = false;
  // Linked by hand and unlinked after: the removal signal lives as long as the registration.
  const listing = new OperationSignal([signal, registration.signal], config.timeouts.listMs);
  let tools: Tool[];
  const listed = performance.now();
  try {
    tools = await listAllTools(session, config, listing.signal);
  } catch (error) {
    // The 404 itself, or the close of the session it expired (the listing is not tracked work, which a retired session would wait for).
    if (session.expired || isSessionExpired(error, session.transport.sessionId)) throw Object.assign(error as Error, { session });
    if (error instanceof McpFleetError || !listing.timedOut) throw error;
    throw new McpFleetError('list_timeout', `MCP server "${config.id}" did not finish tools/list within ${config.timeouts.listMs} ms (timeouts.listMs).`, {
      serverId: config.id,
      cause: error,
    });
  } finally {
    listing.dispose();
  }
  const meta = session.meta;
  checkServerMeta(meta, config);
  registration.logger.debug({ serverId: config.id, method: 'tools/list', tools: tools.length, durationMs: Math.round(performance.now() - listed) }, 'MCP catalog listed');
  const leftOut = new LeftOutTools();
  const publishable = await inSlices(tools, (slice) => publishableTools(slice, config, session, leftOut));
  return { session, tools: publishable, meta, leftOut: leftOut.result() };
}

function checkStillCurrent(registration: ServerRegistration, fetched: FetchedCatalog): void {
  if (registration.removed) throw new McpServerRemovedError(registration.id);
  if (registration.session !== fetched.session) {
    throw new McpFleetError('session_changed', `MCP server "${registration.id}" session changed during discovery; refresh again.`, {
      serverId: registration.id,
    });
  }
}

/** Publishes a fetched catalog: names at once, routes a slice at a time, then one synchronous swap. */
async function commit(registration: ServerRegistration, table: RouteTable, fetched: FetchedCatalog): Promise<void> {
  checkStillCurrent(registration, fetched);
  const names = table.assignNames(registration, fetched.tools);
  const routes = await inSlices(fetched.tools, (slice) => buildRoutes(registration, names, slice));
  checkStillCurrent(registration, fetched);
  table.install(registration, routes, fetched.meta);
  // Told when the catalog that leaves them out is published, so the warnings match what the model sees.
  warnLeftOut(registration.logger, registration.id, registration.leftOut, fetched.leftOut);
  registration.leftOut = fetched.leftOut;
  registration.meta = fetched.meta;
  registration.published = true;
  registration.state = 'ready';
  registration.lastError = undefined;
}

export interface RefreshOptions {
  /** Re-list even when the catalog is not dirty. */
  force: boolean;
  signal: AbortSignal;
}

/**
 * Refreshes `registrations`, returning the failures (the successful ones are
 * published). Concurrent refreshes of one server are serialised; a non-forced refresh
 * of a clean server does nothing.
 */
export async function refreshServers(
  registrations: ServerRegistration[],
  table: RouteTable,
  options: RefreshOptions,
): Promise<McpServerFailure[]> {
  const sorted = [...registrations].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const failures: McpServerFailure[] = [];
  let previousTurn: Promise<void> = Promise.resolve();
  const runs = sorted.map((registration) => {
    const waitTurn = previousTurn;
    const run = registration.refreshLock
      .run(async () => {
        if (!options.force && !registration.dirty) return;
        try {
          const fetched = await fetchCatalog(registration, options.signal);
          await waitTurn;
          await commit(registration, table, fetched);
        } catch (error) {
          // A failed or cancelled refresh keeps the catalog dirty, so the change is not lost. A
          // catalog that was listed but rejected as a whole (a repeated cursor, a duplicate
          // name, a listing budget) stays as it is until the server changes it (and notifies:
          // the flag is set again then, even during this refresh) or the application
          // refreshes: listing it again would not help.
          if (!(error instanceof McpCatalogError)) registration.dirty = true;
          // The caller giving up says nothing about the server.
          if (!registration.removed && !options.signal.aborted) registration.recordFailure(error);
          throw error;
        }
      }, options.signal)
      // Also reached when the caller gave up while waiting for the lock: nothing ran then.
      .catch((error: unknown) => {
        failures.push({ serverId: registration.id, error: redactError(asError(error), registration.config) });
      });
    previousTurn = run;
    return run;
  });
  await Promise.all(runs);
  return failures.sort((a, b) => (a.serverId < b.serverId ? -1 : 1));
}
