/**
 * The id rule of a fleet server. Ids become file names, log fields and parts of tool
 * names, so they are kept to a portable alphabet that cannot name a path (`../../x`).
 */
import { McpConfigError } from '../mcp/errors.js';

const FLEET_ID = /^[A-Za-z0-9_-]+$/;

/** Longest part of a refused id echoed back in a message. */
const ECHO_LENGTH = 64;

/**
 * Returns `id` when it is a valid fleet server id: a non-empty string of ASCII letters,
 * digits, `-` and `_`. Otherwise throws `McpConfigError` (`field: 'id'`) naming the id
 * (JSON-quoted, cut to 64 characters) and the rule. `where` says where the id came from
 * (e.g. a file path), for the message; default: nothing is added.
 */
export function validateFleetServerId(id: unknown, where?: string): string {
  if (typeof id === 'string' && FLEET_ID.test(id)) return id;
  const origin = where === undefined ? '' : ` (${where})`;
  const shown =
    typeof id === 'string'
      ? id.length > ECHO_LENGTH
        ? `${JSON.stringify(id.slice(0, ECHO_LENGTH))}…`
        : JSON.stringify(id)
      : `of type ${id === null ? 'null' : typeof id}`;
  throw new McpConfigError(
    `MCP server id ${shown}${origin} is invalid: an id is a non-empty string of ASCII letters, digits, "-" and "_"; rename the server.`,
    { serverId: typeof id === 'string' && id !== '' ? id : undefined, field: 'id' },
  );
}
