/** The small HTTP answers the gateway writes itself: JSON-RPC errors and JSON documents. */

/** A JSON-RPC error without an id, as the Streamable HTTP transport answers a request it refuses. */
export function jsonRpcErrorBody(code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A web `Response` carrying a JSON-RPC error. */
export function jsonRpcErrorResponse(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(jsonRpcErrorBody(code, message), { status, headers: { 'content-type': 'application/json', ...headers } });
}
