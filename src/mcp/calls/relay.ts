/**
 * Options for relaying a call on behalf of another MCP client (the gateway): the
 * caller's progress, and `input_required` rounds handed back rather than fulfilled, so
 * the client that made the call answers them, and resumed with its answers.
 */
import type { ToolCallOptions } from '../../core/tool.js';

/** One progress update of a call, as the server sent it. */
export interface McpProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/** The answers to an `input_required` round, sent with the retried request (SEP-2322). */
export interface McpInputResume {
  inputResponses?: Record<string, unknown>;
  /** Echoed byte for byte, as the server sent it. */
  requestState?: string;
}

/** A request a server sends its client during a call (2025 revisions push these; 2026-07-28 embeds them in `input_required`). */
export interface McpServerRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/**
 * Answers a server's request on behalf of the caller: resolves with the result the
 * caller gave (an elicitation's `{ action, content }`, a sampling result, `{ roots }`), or
 * rejects, which the server reads as a JSON-RPC error. `signal` aborts when the server
 * gives up on it or the call ends.
 */
export type McpServerRequestHandler = (request: McpServerRequest, signal: AbortSignal) => Promise<Record<string, unknown>>;

/** What relaying adds to a request's options. */
export interface McpRelayOptions {
  /** Receives the server's progress updates for this request. Default: none (progress still resets the request timeout). */
  onProgress?: (update: McpProgressUpdate) => void;
  /**
   * `return` hands an `input_required` result back to the caller (`resultType:
   * 'input_required'`, `inputRequests`, `requestState`) instead of fulfilling it through
   * the provider's handlers. Default `fulfil`.
   */
  inputRequired?: 'fulfil' | 'return';
  /** Resumes a request whose earlier round returned `input_required`. */
  resume?: McpInputResume;
  /**
   * `_meta` keys sent with the request, over the ones the client attaches itself (on
   * 2026-07-28, `io.modelcontextprotocol/clientCapabilities` here is what the server
   * checks an input request against). Default: none.
   */
  meta?: Record<string, unknown>;
  /**
   * Receives the elicitation, sampling and roots requests a 2025 server pushes while this
   * call is in flight, when the provider relays them (`relayServerRequests`). The
   * session cannot tell whose they are when several relayed calls are in flight on it
   * (stdio carries no link from a request to the call it serves): then each is declined.
   * Default: none (such a request is declined).
   */
  onServerRequest?: McpServerRequestHandler;
}

/** Options of `callServerTool`. */
export type McpServerCallOptions = ToolCallOptions & McpRelayOptions;

/** Whether a request relays anything, so it must take the full SDK path. */
export function relays(options: McpRelayOptions): boolean {
  return (
    options.onProgress !== undefined ||
    options.inputRequired === 'return' ||
    options.resume !== undefined ||
    options.meta !== undefined ||
    options.onServerRequest !== undefined
  );
}

/**
 * Marks a `tools/call` whose `input_required` goes back to its caller, whatever it asks
 * for: the session's tap, which otherwise turns a round this host cannot answer into a
 * tool error, reads the mark and takes it out before the request is sent.
 */
export const HAND_BACK_INPUT_KEY = 'io.mcp-fleet/hand-back-input';

/** The request params a relay adds: a resume's answers and state, and `_meta`. */
export function relayParams(options: McpRelayOptions): Record<string, unknown> {
  const { resume, meta } = options;
  const handBack = options.inputRequired === 'return';
  return {
    ...(resume?.inputResponses === undefined ? {} : { inputResponses: resume.inputResponses }),
    ...(resume?.requestState === undefined ? {} : { requestState: resume.requestState }),
    ...(meta === undefined && !handBack ? {} : { _meta: { ...meta, ...(handBack ? { [HAND_BACK_INPUT_KEY]: true } : {}) } }),
  };
}

/** The SDK request options a relay adds (progress, `input_required` handed back). */
export function relayRequestOptions(options: McpRelayOptions): { onprogress?: (update: McpProgressUpdate) => void; allowInputRequired?: true } {
  return {
    ...(options.onProgress === undefined ? {} : { onprogress: options.onProgress }),
    ...(options.inputRequired === 'return' ? { allowInputRequired: true as const } : {}),
  };
}
