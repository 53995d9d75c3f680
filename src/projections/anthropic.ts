/**
 * Anthropic Messages: tools with an object `input_schema`, and `tool_result` blocks
 * holding text, base64 `image` blocks and PDF `document` blocks, `is_error` set on
 * failures. Blank text blocks are left out (the API refuses empty text), so an
 * image-only result is only its images and an empty one has no `content` (an empty
 * failure says so in one text block: the API refuses `is_error` without content).
 */
import { INLINE_IMAGE_TYPES } from '../core/presentation.js';
import type { ToolDefinition, ToolOutput } from '../core/tool.js';
import { EMPTY_FAILURE_TEXT, presentationOf, viewPieces } from './result-view.js';
import { objectRoot } from './root-object.js';
import { ChangeLog } from './schema-tools.js';
import { runCalls } from './turn.js';
import type { ModelToolCall, ProjectedTools, RunToolCallsOptions, ToolCallRef, ToolCallTarget, ToolResultOptions } from './types.js';

/** A client tool of the Messages API (`tools` of `messages.create`). */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: 'object'; properties?: unknown; required?: string[]; [keyword: string]: unknown };
}

type AnthropicImageType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** A content block of a `tool_result`. */
export type AnthropicToolResultContent =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: AnthropicImageType; data: string } }
  | { type: 'document'; source: { type: 'base64'; media_type: 'application/pdf'; data: string } };

/** The block answering one `tool_use` (sent in the next `user` message). */
export interface AnthropicToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content?: AnthropicToolResultContent[];
  is_error?: boolean;
}

/** A Messages API answer (`Message`), or its `content` blocks. */
export type AnthropicModelResponse = { content: readonly unknown[] } | readonly unknown[];


function resultItem(call: ToolCallRef, output: ToolOutput, options: ToolResultOptions = {}): AnthropicToolResult {
  const pieces = viewPieces(presentationOf(output, options), (mimeType) => INLINE_IMAGE_TYPES.has(mimeType) || mimeType === 'application/pdf');
  const content: AnthropicToolResultContent[] = [];
  for (const piece of pieces) {
    if (piece.type === 'text') {
      if (piece.text.trim() !== '') content.push({ type: 'text', text: piece.text });
    } else if (piece.mimeType === 'application/pdf') content.push({ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: piece.data } });
    else content.push({ type: 'image', source: { type: 'base64', media_type: piece.mimeType as AnthropicImageType, data: piece.data } });
  }
  // An error result needs content: the API refuses `is_error` without any.
  if (content.length === 0 && output.isError) content.push({ type: 'text', text: EMPTY_FAILURE_TEXT });
  return {
    type: 'tool_result',
    tool_use_id: call.id,
    ...(content.length === 0 ? {} : { content }),
    ...(output.isError ? { is_error: true } : {}),
  };
}

function toolCalls(response: AnthropicModelResponse): ModelToolCall[] {
  const blocks: readonly unknown[] = Array.isArray(response) ? response : (response as { content: readonly unknown[] }).content;
  const calls: ModelToolCall[] = [];
  for (const item of blocks) {
    const block = item as { type?: unknown; id?: unknown; name?: unknown; input?: unknown };
    if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') calls.push({ id: block.id, name: block.name, arguments: block.input });
  }
  return calls;
}

/** Projections for the Anthropic Messages API. */
export const anthropic = {
  /** The definitions as Messages API tools; the schema root is always an object. */
  tools(definitions: readonly ToolDefinition[]): ProjectedTools<AnthropicTool> {
    const logs = definitions.map((definition) => new ChangeLog(definition.name));
    const tools = definitions.map((definition, index): AnthropicTool => ({
      name: definition.name,
      description: definition.description,
      input_schema: objectRoot(definition.parameters, logs[index]!) as AnthropicTool['input_schema'],
    }));
    return { tools, changes: logs.flatMap((log) => log.changes) };
  },
  /** The `tool_result` block answering `call` (its `tool_use_id`). */
  toolResult: resultItem,
  /** The `tool_use` blocks of a message, in order. */
  toolCalls,
  /** Runs every `tool_use` of `response` on `host` and returns their `tool_result` blocks, in order, for one `user` message. */
  runToolCalls(host: ToolCallTarget, response: AnthropicModelResponse, options: RunToolCallsOptions & ToolResultOptions = {}): Promise<AnthropicToolResult[]> {
    return runCalls(host, toolCalls(response), options, (call, output) => resultItem(call, output, options));
  },
};
