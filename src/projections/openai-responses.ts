/**
 * The OpenAI Responses API: function tools, `function_call_output` items (text, images
 * as `input_image` data URLs, PDFs as `input_file`), and a turn's `function_call` items
 * run through the host.
 */
import { INLINE_IMAGE_TYPES } from '../core/presentation.js';
import type { ToolDefinition, ToolOutput } from '../core/tool.js';
import { type OpenAIToolsOptions, openaiFunction } from './openai-schema.js';
import { dataUrl, documentName, presentationOf, viewPieces } from './result-view.js';
import { runCalls } from './turn.js';
import type { ModelToolCall, ProjectedTools, RunToolCallsOptions, ToolCallRef, ToolCallTarget, ToolResultOptions } from './types.js';

/** A function tool of the Responses API (`tools` of `responses.create`). */
export interface OpenAIResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** A part of a `function_call_output`'s `output` list. */
export type OpenAIResponsesOutputPart =
  | { type: 'input_text'; text: string }
  | { type: 'input_image'; image_url: string; detail: 'auto' }
  | { type: 'input_file'; file_data: string; filename: string };

/** The input item answering one `function_call`. */
export interface OpenAIResponsesToolResult {
  type: 'function_call_output';
  call_id: string;
  /** Plain text when the result is text only (every model takes it); a part list when it carries media. */
  output: string | OpenAIResponsesOutputPart[];
}

/** A Responses API answer (`Response`), or its `output` list. */
export type OpenAIResponsesModelResponse = { output: readonly unknown[] } | readonly unknown[];

const FILES = new Set(['application/pdf']);

function resultItem(call: ToolCallRef, output: ToolOutput, options: ToolResultOptions = {}): OpenAIResponsesToolResult {
  const pieces = viewPieces(presentationOf(output, options), (mimeType) => INLINE_IMAGE_TYPES.has(mimeType) || FILES.has(mimeType));
  if (pieces.every((piece) => piece.type === 'text')) {
    return { type: 'function_call_output', call_id: call.id, output: pieces.map((piece) => piece.text).join('\n') };
  }
  let files = 0;
  const parts = pieces.map((piece): OpenAIResponsesOutputPart => {
    if (piece.type === 'text') return { type: 'input_text', text: piece.text };
    if (INLINE_IMAGE_TYPES.has(piece.mimeType)) return { type: 'input_image', image_url: dataUrl(piece), detail: 'auto' };
    return { type: 'input_file', file_data: dataUrl(piece), filename: documentName(piece, files++) };
  });
  return { type: 'function_call_output', call_id: call.id, output: parts };
}

function toolCalls(response: OpenAIResponsesModelResponse): ModelToolCall[] {
  const items: readonly unknown[] = Array.isArray(response) ? response : (response as { output: readonly unknown[] }).output;
  const calls: ModelToolCall[] = [];
  for (const item of items) {
    const call = item as { type?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown };
    if (call.type === 'function_call' && typeof call.call_id === 'string' && typeof call.name === 'string') {
      calls.push({ id: call.call_id, name: call.name, arguments: call.arguments });
    }
  }
  return calls;
}

/** Projections for the OpenAI Responses API. */
export const openaiResponses = {
  /** The definitions as Responses function tools; see `OpenAIToolsOptions` for strict mode. */
  tools(definitions: readonly ToolDefinition[], options: OpenAIToolsOptions = {}): ProjectedTools<OpenAIResponsesTool> {
    const projected = definitions.map((definition) => openaiFunction(definition, options));
    return { tools: projected.map(({ fn }) => ({ type: 'function', ...fn })), changes: projected.flatMap(({ changes }) => changes) };
  },
  /** The `function_call_output` item answering `call` (its `call_id` and name). */
  toolResult: resultItem,
  /** The `function_call` items of a response, in order. */
  toolCalls,
  /** Runs every `function_call` of `response` on `host` and returns their `function_call_output` items, in order. */
  runToolCalls(host: ToolCallTarget, response: OpenAIResponsesModelResponse, options: RunToolCallsOptions & ToolResultOptions = {}): Promise<OpenAIResponsesToolResult[]> {
    return runCalls(host, toolCalls(response), options, (call, output) => resultItem(call, output, options));
  },
};
