/**
 * `McpFleetServerConfig`: one server of a fleet, as the application or an `mcp.json`
 * file describes it. It is an `McpServerConfig` whose strings may still hold `${...}`
 * templates (expanded only when the server starts), plus the fleet's own fields.
 */
import type { McpServerConfig, McpSseTransportConfig, McpStdioTransportConfig, McpHttpTransportConfig } from '../mcp/config/config.js';
import type { McpRestartPolicy } from './restart-policy.js';

/** A stdio server of a fleet: the provider's stdio transport plus VS Code's `envFile`. */
export interface McpFleetStdioTransportConfig extends McpStdioTransportConfig {
  /**
   * A dotenv file read when the server starts; its variables are added to the child's
   * environment, and `env` wins over it. Relative to the workspace folder. Default: none.
   */
  envFile?: string;
}

export type McpFleetTransportConfig = McpFleetStdioTransportConfig | McpHttpTransportConfig | McpSseTransportConfig;

/** One server of a fleet. Only `id` and `transport` are required. */
export interface McpFleetServerConfig extends Omit<McpServerConfig, 'transport'> {
  transport: McpFleetTransportConfig;
  /** A disabled server is never started. Default `false`. */
  disabled?: boolean;
  /**
   * Tool names an editor marks as approved without asking. Kept and written back for
   * the editors that read it; mcp-fleet never uses it to approve anything. Default `[]`.
   */
  autoApprove?: string[];
  /** Restart the server after a crash, with backoff. Default: none (a crashed server stays down). */
  restartPolicy?: McpRestartPolicy;
}
