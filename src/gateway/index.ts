/**
 * `mcp-fleet/gateway`: a fleet served as one MCP server, to clients of both protocol
 * eras, over Streamable HTTP and stdio. See docs/gateway.md.
 */
export { McpGateway, type McpGatewayOptions } from './gateway.js';
export { serveGatewayHttp, type McpGatewayHttp, type McpGatewayHttpOptions, type McpGatewayServerHealth } from './serve-http.js';
export { McpEndpoint, ENDPOINT_DEFAULTS, type McpEndpointOptions } from './endpoint.js';
export { listenHttp, type HttpListener, type HttpListenerOptions, type HttpRouteResult } from './http-listener.js';
export { prefixedName, prefixedUri, type GatewayNaming } from './names.js';
export type { McpGatewayUpstream } from './upstream.js';
export type { McpGatewayOAuthOptions } from './oauth-resource.js';
export type { ToolRoute } from './catalog.js';
export { compileProfiles, type McpGatewayProfile, type GatewayProfileFilter } from './profiles.js';
export { GatewayView, type GatewayExposure } from './view.js';
export { TOOLS_CALL } from './discovery.js';
