/**
 * `tools/call` results as `ToolOutput`s: the audited envelope (everything the server
 * sent, plus which server and tool it came from) and the bounded model view. Host-side
 * failures the model should read come back the same way, as error results.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { MAX_JSON_DEPTH, scanJson } from '../../core/budget.js';
import { isJsonObject } from '../../core/json.js';
import { textPresentation } from '../../core/presentation.js';
import type { ToolOutput } from '../../core/tool.js';
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

const isString = (value: unknown): boolean => typeof value === 'string';

/** What the model view relies on in one content block, or `undefined` when it holds. */
function blockProblem(block: unknown): string | undefined {
  if (!isJsonObject(block) || !isString(block.type)) return 'a content block without a string "type"';
  switch (block.type) {
    case 'text':
      return isString(block.text) ? undefined : 'a text block without a string "text"';
    case 'image':
    case 'audio':
      return isString(block.data) && isString(block.mimeType) ? undefined : `an ${block.type} block without string "data" and "mimeType"`;
    case 'resource':
      return isJsonObject(block.resource) && isString(block.resource.uri) ? undefined : 'a resource block without a "resource.uri"';
    case 'resource_link':
      return isString(block.uri) ? undefined : 'a resource_link block without a string "uri"';
    default:
      return undefined;
  }
}

/**
 * What is wrong with a result, or `undefined`. The SDK checks the shape of direct
 * answers; results fetched for a task (tasks/get, tasks/result) reach the host unchecked.
 * Nesting deeper than `MAX_JSON_DEPTH` anywhere is wrong too: every later serialisation
 * of such a result would throw.
 */
function resultProblem(result: unknown): string | undefined {
  if (!isJsonObject(result)) return 'not an object';
  if (scanJson(result, Number.POSITIVE_INFINITY, '').tooDeep) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
  if (result.content !== undefined && !Array.isArray(result.content)) return '"content" is not a list';
  if (result.structuredContent !== undefined && !isJsonObject(result.structuredContent)) return '"structuredContent" is not an object';
  for (const block of (result.content as unknown[] | undefined) ?? []) {
    const problem = blockProblem(block);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * The output of a completed call: the full envelope and its bounded view. A result the
 * view cannot rely on (see `resultProblem`) becomes a `result_invalid` error result.
 */
export function callOutput(
  serverId: string,
  remoteName: string,
  result: CallToolResult,
  limits: PresentationLimits,
): ToolOutput<McpToolEnvelope> | ToolOutput<Record<string, unknown>> {
  const problem = resultProblem(result);
  if (problem !== undefined) {
    return callError(serverId, remoteName, 'result_invalid', `MCP server "${serverId}" answered "${remoteName}" with an invalid result: ${problem}.`);
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
