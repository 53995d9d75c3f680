/**
 * The logger mcp-fleet writes to: structured fields first, then a message. Both pino
 * (`logger.warn({ serverId }, 'text')`) and `console` satisfy it. Silent by default;
 * no secret is ever passed to it.
 */
export type McpLogFields = Record<string, unknown>;

export interface McpLogger {
  debug(fields: McpLogFields, message: string): void;
  info(fields: McpLogFields, message: string): void;
  warn(fields: McpLogFields, message: string): void;
  error(fields: McpLogFields, message: string): void;
}

const noop = (): void => {};

/** The default logger: writes nothing. */
export const silentLogger: McpLogger = { debug: noop, info: noop, warn: noop, error: noop };
