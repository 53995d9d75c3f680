/**
 * What both forms of the OpenAI Agents SDK adapter share (calls go through the
 * projections' `callModelTool`): a `ToolOutput` in the two shapes the SDK turns into
 * `function_call_result` items: a function tool's return value (text, or `text` and
 * `image` outputs) and MCP content blocks (what an `MCPServer` returns).
 */
import type { CallToolResult, ToolOutputImage, ToolOutputText } from '@openai/agents';
import { isJsonObject } from '../core/json.js';
import type { ToolOutput } from '../core/tool.js';
import { isImage, outputPieces } from './source.js';

/**
 * What a function tool of this adapter returns: plain text when the result is text only,
 * else `text` and `image` outputs in order (the SDK sends each image as an `input_image`
 * part with a data URL).
 */
export type OpenAIAgentsToolOutput = string | Array<ToolOutputText | ToolOutputImage>;


/** The output as a function tool's return value. */
export function functionToolOutput(output: ToolOutput): OpenAIAgentsToolOutput {
  const pieces = outputPieces(output, isImage);
  if (pieces.every((piece) => piece.type === 'text')) return pieces.map((piece) => piece.text).join('\n');
  return pieces.map((piece): ToolOutputText | ToolOutputImage =>
    piece.type === 'text' ? { type: 'text', text: piece.text } : { type: 'image', image: { data: piece.data, mediaType: piece.mimeType } },
  );
}

/**
 * The output as an MCP `CallToolResult` built from the bounded presentation (never the
 * raw content: the SDK dumps a content list it cannot read, audio or a resource, as
 * JSON with its base64). `structuredContent` and `_meta` come from the audited
 * envelope, for the SDK's `customDataExtractor`; the model sees them only through the
 * presentation (structured content first, as JSON) unless `useStructuredContent` is set.
 */
export function mcpToolResult(output: ToolOutput): CallToolResult {
  const pieces = outputPieces(output, isImage);
  const content: CallToolResult['content'] = pieces.map((piece) =>
    piece.type === 'text' ? { type: 'text', text: piece.text } : { type: 'image', data: piece.data, mimeType: piece.mimeType },
  );
  // An empty list would reach the model as the text "[]".
  if (content.length === 0) content.push({ type: 'text', text: '' });
  const envelope = output.output as { structuredContent?: unknown; _meta?: unknown } | null | undefined;
  const result: CallToolResult = { content, isError: output.isError };
  if (isJsonObject(envelope?.structuredContent)) result.structuredContent = envelope.structuredContent;
  if (isJsonObject(envelope?._meta)) result._meta = envelope._meta;
  return result;
}

