/**
 * `tools/call` results as `ToolOutput`s: the audited envelope (everything the server
 * sent, plus which server and tool it came from) and the bounded model view. Host-side
 * failures the model should read come back the same way, as error results.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { MAX_JSON_DEPTH, scanJson } from '../core/budget.js';
import { textPresentation } from '../core/presentation.js';
import type { ToolOutput } from '../core/tool.js';
import { type PresentationLimits, presentResult } from './presentation.js';

/** The audited envelope in `ToolOutput.output` of every MCP tool call. */
export interface McpToolEnvelope {
  server_id: string;
  /** The tool's original (remote) name. */
  tool: string;
  content: CallToolResult['content'];
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
  isError: boolean;
}

/** Whether `value` nests objects and arrays deeper than `MAX_JSON_DEPTH`, where serialising it would throw. */
const nestsTooDeeply = (value: unknown): boolean => value !== undefined && scanJson(value, Number.POSITIVE_INFINITY, '').tooDeep;

/**
 * The output of a completed call: the full envelope and its bounded view. A result whose
 * structured content or `_meta` nests deeper than `MAX_JSON_DEPTH` becomes an error
 * result instead: a few KB of it would make every later serialisation throw.
 */
export function callOutput(
  serverId: string,
  remoteName: string,
  result: CallToolResult,
  limits: PresentationLimits,
): ToolOutput<McpToolEnvelope> | ToolOutput<Record<string, unknown>> {
  if (nestsTooDeeply(result.structuredContent) || nestsTooDeeply(result._meta)) {
    return callError(
      serverId,
      remoteName,
      'result_invalid',
      `MCP server "${serverId}" answered "${remoteName}" with a result nested deeper than ${MAX_JSON_DEPTH} levels; it was not kept.`,
    );
  }
  const isError = result.isError === true;
  const envelope: McpToolEnvelope = {
    server_id: serverId,
    tool: remoteName,
    content: result.content ?? [],
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    ...(result._meta === undefined ? {} : { _meta: result._meta }),
    isError,
  };
  return { output: envelope, modelOutput: presentResult(result, limits), isError };
}

/** A host-side failure of a call, as a tool-level error result the model can read. */
export function callError(
  serverId: string,
  remoteName: string,
  code: string,
  message: string,
): ToolOutput<Record<string, unknown>> {
  return {
    output: { server_id: serverId, tool: remoteName, error: { code, message, server_id: serverId } },
    modelOutput: textPresentation(message),
    isError: true,
  };
}
