/**
 * mcp-fleet: the MCP host layer for agent runtimes. This file is the public API; it
 * only re-exports.
 */

// Framework-neutral core
export type { JsonSchema, StaticTool, ToolCallOptions, ToolDefinition, ToolGroupInfo, ToolOutput } from './core/tool.js';
export { functionNameProblem, isValidFunctionName, MAX_TOOL_NAME_LENGTH } from './core/tool.js';
export type { ToolMediaPart, ToolPresentation, ToolPresentationPart, ToolTextPart } from './core/presentation.js';
export { isToolPresentation, mediaNotice, presentationText, textPresentation, toolPresentation, TRUNCATION_MARKER } from './core/presentation.js';
export type { ToolGroup } from './core/group.js';
export type { ToolProvider, ToolProviderInitOptions } from './core/provider.js';
export { ToolHost, ToolHostError, toolError, type ToolHostOptions } from './core/host.js';
export { ToolSession, type ToolSessionHost, type ToolSessionOptions } from './core/session.js';
export {
  DEFAULT_DISCOVERY_LIMITS,
  DISCOVERY_TOOL_NAMES,
  TOOLS_GROUPS,
  TOOLS_SEARCH,
  TOOLS_SELECT,
  type DiscoveryLimits,
  type DiscoveryOptions,
  type DiscoveryResult,
  type GroupDirectoryEntry,
} from './core/discovery.js';
export { DEFAULT_SYNONYMS } from './core/search/synonyms.js';
export type { ToolSearchFields } from './core/search/fields.js';
export type { EmbedTexts } from './core/search/hybrid.js';

// MCP host layer
export { McpToolCallError, McpToolProvider, type McpOperationOptions, type McpToolOrigin, type McpToolProviderOptions } from './mcp/provider.js';
export type { McpReconnectMode, McpServerClosedEvent } from './mcp/registration.js';
export type {
  McpAuthorizationCodeConfig,
  McpClientCredentialsConfig,
  McpHttpTransportConfig,
  McpOAuthConfig,
  McpServerConfig,
  McpSseTransportConfig,
  McpStdioTransportConfig,
  McpTasksConfig,
  McpTransportConfig,
} from './mcp/config/config.js';
export {
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUTS,
  type McpConcurrency,
  type McpLeftOutTool,
  type McpLeftOutTools,
  type McpLifecycle,
  type McpLimits,
  type McpServerState,
  type McpServerStatus,
  type McpStartup,
  type McpTimeouts,
  type McpToolBudget,
} from './mcp/config/policy.js';
export {
  McpAuthorizationRequired,
  McpConfigError,
  McpFleetError,
  McpRefreshError,
  McpServerRemovedError,
  McpServerUnavailableError,
  McpUnknownServerError,
  type McpServerFailure,
} from './mcp/errors.js';
export { McpCatalogError } from './mcp/catalog/catalog.js';
export { McpConnectError } from './mcp/session/session.js';
export { type McpLogFields, type McpLogger, silentLogger } from './mcp/logger.js';
export type { McpToolEnvelope } from './mcp/calls/results.js';
export { ENV_ALLOWLIST } from './mcp/transport/env.js';
export { McpRedirectError, McpResponseTooLargeError } from './mcp/transport/bounded-fetch.js';
export { McpMessageTooLargeError } from './mcp/transport/stdio.js';
export {
  credentialEndpoint,
  InMemoryMcpCredentialStore,
  type McpCredentialKey,
  type McpCredentialStore,
  type McpRefreshGuardRelease,
  type McpStoredCredentials,
  type McpStoredTokens,
} from './mcp/auth/store.js';
export { FileMcpCredentialStore, type FileMcpCredentialStoreOptions } from './mcp/auth/file-store.js';
export { McpAuthorizationCallbackError } from './mcp/auth/authorizer.js';
export { discoverHttpOauth, type McpOAuthDiscovery } from './mcp/auth/discovery.js';
export { startOAuthCallbackListener, type OAuthCallbackListener, type OAuthCallbackListenerOptions } from './mcp/auth/loopback.js';
export type {
  McpElicitationContext,
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
  McpFormElicitation,
  McpUrlElicitation,
} from './mcp/calls/interaction.js';
export type { McpResourceListener } from './mcp/context/resources.js';
export type { McpCompletion, McpCompletionReference } from './mcp/context/prompts.js';
export { McpOperationError } from './mcp/context/server-operations.js';
export { McpTaskError } from './mcp/calls/tasks.js';
export { McpEventError, type McpEventErrorKind } from './mcp/context/events/errors.js';
export type { McpEventErrorData } from './mcp/context/events/error-data.js';
export type {
  McpEvent,
  McpEventDeliveryMode,
  McpEventSignal,
  McpEventSink,
  McpEventSubscription,
  McpEventSubscriptionRequest,
  McpEventType,
  McpWebhookSubscription,
  McpWebhookSubscriptionRequest,
} from './mcp/context/events/types.js';
export type { McpWebhookTarget } from './mcp/context/events/webhook.js';
export {
  MCP_WEBHOOK_DEFAULT_MAX_BODY_BYTES,
  MCP_WEBHOOK_DEFAULT_TOLERANCE_SECONDS,
  McpWebhookVerificationError,
  signWebhookDelivery,
  verifyWebhookDelivery,
  webhookChallengeResponse,
  type McpWebhookChallengeResponse,
  type McpWebhookDelivery,
  type McpWebhookEvent,
  type McpWebhookHeaders,
  type McpWebhookVerificationFailure,
  type McpWebhookVerifyOptions,
} from './mcp/context/events/webhook-verify.js';

// The fleet: mcp.json files in every editor's dialect, supervision, a live registry
export { McpServerManager, type McpFleetAddOptions, type McpFleetSaveOptions, type McpServerManagerFileOptions, type McpServerManagerOptions } from './fleet/manager.js';
export type { McpFleetReload, McpFleetServerStatus, McpFleetStartOutcome, McpFleetState, McpServerManagerEvents } from './fleet/status.js';
export type { McpFleetServerConfig, McpFleetStdioTransportConfig, McpFleetTransportConfig } from './fleet/server-config.js';
export { DEFAULT_RESTART_POLICY, type McpRestartPolicy } from './fleet/restart-policy.js';
export { loadMcpConfig, McpConfigDocument, McpConfigFileError, parseMcpConfig, type McpConfigLoadOptions, type McpConfigRenderOptions } from './fleet/config-file.js';
export type { McpConfigDialect } from './fleet/dialects.js';
export type { McpConfigInput, McpInputHandler, McpInputRequest } from './fleet/expand.js';
export { findMcpConfigs, type McpConfigLocation } from './fleet/locations.js';

// Model projections (also the subpath `mcp-fleet/projections`): definitions and results per model API
export * from './projections/index.js';
