/**
 * What an `McpServerManager` is built with, and the options of its `addServer`, `save`
 * and `fromFile`, each with its default.
 */
import type { McpCredentialStore } from '../mcp/auth/store.js';
import type { McpElicitationHandler } from '../mcp/calls/interaction.js';
import type { McpLogger } from '../mcp/logger.js';
import type { McpToolProviderOptions } from '../mcp/provider.js';
import type { McpConfigDocument } from './config-file.js';
import type { McpConfigLoadOptions } from './config-read.js';
import type { McpConfigDialect } from './dialects.js';
import type { McpInputHandler } from './expand.js';
import type { McpFleetServerConfig } from './server-config.js';

export interface McpServerManagerOptions {
  /** The servers, in order. Default `[]`. Not with `file`. */
  servers?: McpFleetServerConfig[];
  /** A loaded config file: its servers, and where `save()` and `watch()` go. Not with `servers`. */
  file?: McpConfigDocument;
  /** The provider name a `ToolHost` knows this manager by. Default `mcp_fleet`. */
  name?: string;
  /** How often running servers' connections are checked while monitoring, in milliseconds. Default 30,000. */
  healthCheckIntervalMs?: number;
  /** How long a stopping stdio server has to exit after its stdin closes, unless its `timeouts.closeMs` says otherwise. Default 5,000 ms. */
  gracePeriodMs?: number;
  /** Save the file after every change made through the registry methods. Default `false`. */
  autoSave?: boolean;
  /** Where `${VAR}` and `${env:VAR}` are read. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** `${userHome}`. Default `os.homedir()`. */
  home?: string;
  /** `${workspaceFolder}`. Default: the file's (see `loadMcpConfig`), else the current directory. */
  workspaceFolder?: string;
  /** Answers `${input:id}` (VS Code inputs), each input once per manager. Default: none (an input is then an error). */
  inputs?: McpInputHandler;
  /** The dialect `save(path)` writes when there is no file yet. Default `claude_desktop`. */
  dialect?: McpConfigDialect;
  /** Passed to the provider. Default: silent. */
  logger?: McpLogger;
  /** Passed to the provider: where OAuth grants live. Default: in memory. */
  credentialStore?: McpCredentialStore;
  /** Passed to the provider: answers elicitations of servers that opted in. Default: none. */
  elicitation?: McpElicitationHandler;
  /** Passed to the provider: hears the servers' list changes and log messages (see `McpToolProviderOptions.onNotification`). Default: none. */
  onNotification?: McpToolProviderOptions['onNotification'];
  /** Passed to the provider: servers' requests to their client go to the caller of the call in flight (see `McpToolProviderOptions.relayServerRequests`). Default `false`. */
  relayServerRequests?: boolean;
}

/** `McpServerManager.addServer` options. */
export interface McpFleetAddOptions {
  /**
   * Fields the server's entry is written with when it is saved as a new entry, besides
   * its config: an editor's own keys carried from another file (what
   * `McpConfigDocument.unknownFields` gives). Keys mcp-fleet reads are refused. Default: none.
   */
  unknownFields?: Record<string, unknown>;
}

/** `McpServerManager.save` options. */
export interface McpFleetSaveOptions {
  /**
   * Write in this dialect: the servers' key and every entry in its style, everything else
   * kept (see `McpConfigRenderOptions.dialect`). Default: the file's dialect, or the
   * `dialect` option for a fleet built in code.
   */
  dialect?: McpConfigDialect;
}

/** `McpServerManager.fromFile` options: the manager's, and how to read the file. */
export type McpServerManagerFileOptions = Omit<McpServerManagerOptions, 'servers' | 'file'> & Pick<McpConfigLoadOptions, 'dialect'>;
