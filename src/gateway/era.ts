/**
 * Which protocol era a request belongs to, decided from the body the listener already
 * parsed. This is the rule of the SDK's `isLegacyRequest` (which needs a web `Request`):
 * a POST without a JSON body is legacy, and everything else goes by the SDK's own
 * `classifyInboundRequest` on the method, the standard headers and the body, so the two
 * legs can never disagree about a request.
 */
import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import { headerValue, type McpRequestBody } from './node-exchange.js';

export function isLegacyExchange(request: IncomingMessage, body: McpRequestBody): boolean {
  const httpMethod = request.method ?? 'GET';
  // A body is only looked at on a POST; there a missing or unparseable one is 2025 traffic.
  const post = httpMethod.toUpperCase() === 'POST';
  if (post && !body.json) return true;
  const protocolVersionHeader = headerValue(request, 'mcp-protocol-version');
  const mcpMethodHeader = headerValue(request, 'mcp-method');
  const mcpNameHeader = headerValue(request, 'mcp-name');
  const outcome = classifyInboundRequest({
    httpMethod,
    ...(protocolVersionHeader === undefined ? {} : { protocolVersionHeader }),
    ...(mcpMethodHeader === undefined ? {} : { mcpMethodHeader }),
    ...(mcpNameHeader === undefined ? {} : { mcpNameHeader }),
    ...(post && body.json ? { body: body.value } : {}),
  });
  return outcome.kind === 'legacy';
}
