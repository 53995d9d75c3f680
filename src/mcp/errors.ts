/**
 * Errors the application must handle. Each has a stable `code`, names the server and,
 * where it applies, the field or tool, and says how to recover. What the model should
 * see instead comes back as a tool result with `isError: true`, never as one of these.
 */

/** Base class of every error mcp-fleet throws. */
export class McpFleetError extends Error {
  readonly code: string;
  readonly serverId: string | undefined;

  constructor(code: string, message: string, options: { serverId?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.serverId = options.serverId;
  }
}

/** A server configuration is invalid. `field` is the dotted path of the offending field. */
export class McpConfigError extends McpFleetError {
  readonly field: string | undefined;

  constructor(message: string, options: { serverId?: string; field?: string } = {}) {
    super('config_invalid', message, options);
    this.field = options.field;
  }
}

/** A server could not be reached or set up (a required server at `init()`, or a runtime add). */
export class McpServerUnavailableError extends McpFleetError {
  constructor(serverId: string, message: string, cause?: unknown) {
    super('server_unavailable', message, { serverId, cause });
  }
}

/** The server needs (re-)authorization before it can be used. */
export class McpAuthorizationRequired extends McpFleetError {
  constructor(serverId: string, message?: string, cause?: unknown) {
    super(
      'authorization_required',
      message ??
        `MCP server "${serverId}" requires authorization; run beginAuthorization/completeAuthorization for it, then retry.`,
      { serverId, cause },
    );
  }
}

/** One server's failure inside an aggregate refresh. */
export interface McpServerFailure {
  serverId: string;
  error: Error;
}

/** `refresh()` could not refresh every server; the others were refreshed and published. */
export class McpRefreshError extends McpFleetError {
  readonly failures: McpServerFailure[];

  constructor(failures: McpServerFailure[]) {
    super(
      'refresh_failed',
      `Failed to refresh MCP servers: ${failures.map((failure) => `${failure.serverId}: ${failure.error.message}`).join('; ')}`,
    );
    this.failures = failures;
  }
}

/** The server or its registration went away while an operation was running. */
export class McpServerRemovedError extends McpFleetError {
  constructor(serverId: string) {
    super('server_removed', `MCP server "${serverId}" was removed.`, { serverId });
  }
}

/** An operation named a server id that is not registered. */
export class McpUnknownServerError extends McpFleetError {
  constructor(serverId: string) {
    super('unknown_server', `No MCP server is registered with id "${serverId}".`, { serverId });
  }
}

/** Message of any thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Any thrown value as an `Error`. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
