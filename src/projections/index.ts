/**
 * `mcp-fleet/projections`: tool definitions and tool results in the exact shape each
 * model API accepts (OpenAI Responses, OpenAI Chat Completions, Anthropic Messages,
 * Gemini), and a turn's tool calls run through a `ToolHost`. Pure functions: no
 * network, no provider SDK at run time. Each target has the same members, so switching
 * provider is switching one name.
 */
export { openaiResponses, type OpenAIResponsesModelResponse, type OpenAIResponsesOutputPart, type OpenAIResponsesTool, type OpenAIResponsesToolResult } from './openai-responses.js';
export { openaiChat, type OpenAIChatModelResponse, type OpenAIChatTool, type OpenAIChatToolResult } from './openai-chat.js';
export type { OpenAIToolsOptions } from './openai-schema.js';
export { anthropic, type AnthropicModelResponse, type AnthropicTool, type AnthropicToolResult, type AnthropicToolResultContent } from './anthropic.js';
export {
  gemini,
  geminiModelFeatures,
  type GeminiCallRef,
  type GeminiFunctionDeclaration,
  type GeminiFunctionResponsePart,
  type GeminiModelOptions,
  type GeminiModelProjection,
  type GeminiModelResponse,
  type GeminiSchema,
  type GeminiTool,
  type GeminiToolResult,
} from './gemini.js';
export { DEFAULT_RAW_OUTPUT_TEXT_BYTES } from './result-view.js';
export type { ModelToolCall, ProjectedTools, RunToolCallsOptions, SchemaChange, ToolCallRef, ToolCallTarget, ToolResultOptions } from './types.js';
