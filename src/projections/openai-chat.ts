/**
 * OpenAI Chat Completions: function tools, and `tool` messages, which carry text only:
 * every media part becomes a notice (the neutral output keeps it for other models).
 */
import type { ToolDefinition, ToolOutput } from '../core/tool.js';
import { type OpenAIToolsOptions, openaiFunction } from './openai-schema.js';
import { presentationOf, viewText } from './result-view.js';
import { runCalls } from './turn.js';
import type { ModelToolCall, ProjectedTools, RunToolCallsOptions, ToolCallRef, ToolCallTarget, ToolResultOptions } from './types.js';

/** A function tool of Chat Completions (`tools` of `chat.completions.create`). */
export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/** The message answering one tool call. */
export interface OpenAIChatToolResult {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** A Chat Completions answer (`ChatCompletion`), or one of its messages. */
export type OpenAIChatModelResponse = { choices: ReadonlyArray<{ message?: unknown }> } | { tool_calls?: readonly unknown[] | null };

function resultItem(call: ToolCallRef, output: ToolOutput, options: ToolResultOptions = {}): OpenAIChatToolResult {
  return { role: 'tool', tool_call_id: call.id, content: viewText(presentationOf(output, options)) };
}

function toolCalls(response: OpenAIChatModelResponse): ModelToolCall[] {
  const message = ('choices' in response ? response.choices[0]?.message : response) as { tool_calls?: unknown } | undefined;
  const calls: ModelToolCall[] = [];
  for (const item of Array.isArray(message?.tool_calls) ? (message.tool_calls as unknown[]) : []) {
    const call = item as { id?: unknown; type?: unknown; function?: { name?: unknown; arguments?: unknown } };
    if (call.type === 'function' && typeof call.id === 'string' && typeof call.function?.name === 'string') {
      calls.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
  }
  return calls;
}

/** Projections for OpenAI Chat Completions. */
export const openaiChat = {
  /** The definitions as Chat Completions function tools; see `OpenAIToolsOptions` for strict mode. */
  tools(definitions: readonly ToolDefinition[], options: OpenAIToolsOptions = {}): ProjectedTools<OpenAIChatTool> {
    const projected = definitions.map((definition) => openaiFunction(definition, options));
    return { tools: projected.map(({ fn }) => ({ type: 'function', function: fn })), changes: projected.flatMap(({ changes }) => changes) };
  },
  /** The `tool` message answering `call` (its `tool_call_id`). */
  toolResult: resultItem,
  /** The function tool calls of the first choice's message, in order. */
  toolCalls,
  /** Runs every function tool call of `response` on `host` and returns their `tool` messages, in order. */
  runToolCalls(host: ToolCallTarget, response: OpenAIChatModelResponse, options: RunToolCallsOptions & ToolResultOptions = {}): Promise<OpenAIChatToolResult[]> {
    return runCalls(host, toolCalls(response), options, (call, output) => resultItem(call, output, options));
  },
};
