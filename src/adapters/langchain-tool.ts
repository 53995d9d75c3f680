/**
 * One host definition as a LangChain structured tool, and one host result as the
 * `ToolMessage` the model reads: what `langChainTools` and the session middleware share.
 */
import { type ContentBlock, ToolMessage } from '@langchain/core/messages';
import { DynamicStructuredTool } from '@langchain/core/tools';
import type { ToolDefinition, ToolOutput } from '../core/tool.js';
import { dataUrl, EMPTY_FAILURE_TEXT } from '../projections/result-view.js';
import { objectRoot } from '../projections/root-object.js';
import { ChangeLog } from '../projections/schema-tools.js';
import { type AdapterTarget, isImage, outputPieces } from './source.js';

/** How a tool result's content is written into the `ToolMessage` the model reads. */
export type LangChainContentBlocks = 'standard' | 'openai-responses' | 'text';

/** Options of `langChainTools` and `langChainSessionMiddleware`. */
export interface LangChainToolsOptions {
  /**
   * The content blocks of a result that carries images (a result without any is always a
   * plain string, which every chat model integration takes):
   * - `'standard'` (default): LangChain's standard blocks, `{ type: 'text', text }` and
   *   `{ type: 'image', mimeType, data }` (base64). ChatAnthropic turns them into the
   *   `text` and `image` blocks of its `tool_result`.
   * - `'openai-responses'`: `{ type: 'input_text', text }` and
   *   `{ type: 'input_image', image_url: <data URL> }`, which ChatOpenAI on the Responses
   *   API passes into `function_call_output` as they are (it JSON-encodes any other array).
   * - `'text'`: no images; each one becomes a notice in the text. For model APIs whose tool
   *   results take text only, such as OpenAI Chat Completions.
   *
   * Media other than PNG, JPEG, WebP and GIF always become notices.
   */
  contentBlocks?: LangChainContentBlocks;
  /**
   * A deadline for each call, in milliseconds; its expiry is a tool-level `timeout` result
   * the model reads (an MCP call uses the smaller of this and its server's
   * `timeouts.callMs`). Default: none beyond the server's own.
   */
  timeoutMs?: number;
}

/**
 * The artifact of every `ToolMessage` these tools produce (`message.artifact`): what the
 * host returned, for the application, never sent to the model.
 */
export interface LangChainToolArtifact {
  /** The complete, audited result (`ToolOutput.output`; for an MCP tool, the envelope `{ server_id, tool, content, structuredContent?, _meta?, isError }`). */
  output: unknown;
  /** Whether the call failed at tool level (the `ToolMessage`'s `status` is then `'error'`). */
  isError: boolean;
}

/** A tool result's content as the model reads it: a string, or content blocks when images are kept (LangChain's `MessageContent`). */
export type LangChainToolContent = string | ContentBlock[];

/** A tool these adapters make: a `DynamicStructuredTool` whose schema is a JSON Schema. */
export type LangChainTool = DynamicStructuredTool;

/**
 * A tool output as `ToolMessage` content: text alone as one string; with images, text and
 * image blocks in the order the tool gave them, in the dialect `contentBlocks` names
 * (default `'standard'`). Never a JSON dump of base64: images are blocks, other media notices.
 */
export function langChainToolContent(output: ToolOutput, contentBlocks: LangChainContentBlocks = 'standard'): LangChainToolContent {
  const pieces = outputPieces(output, contentBlocks === 'text' ? () => false : isImage);
  if (pieces.every((piece) => piece.type === 'text')) return pieces.map((piece) => piece.text).join('\n');
  return pieces.map((piece): ContentBlock => {
    if (contentBlocks === 'openai-responses') {
      return piece.type === 'text' ? { type: 'input_text', text: piece.text } : { type: 'input_image', image_url: dataUrl(piece) };
    }
    if (piece.type === 'text') return { type: 'text', text: piece.text } satisfies ContentBlock.Text;
    return { type: 'image', mimeType: piece.mimeType, data: piece.data } satisfies ContentBlock.Multimodal.Image;
  });
}

/** The tool call LangChain is running, if the tool was invoked with one (an agent always does). */
function toolCallId(config: unknown): string | undefined {
  const id = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  return typeof id === 'string' ? id : undefined;
}

/** `definition` as a structured tool that calls `target`. */
export function langChainTool(target: AdapterTarget, definition: ToolDefinition, options: LangChainToolsOptions): LangChainTool {
  const { name, description } = definition;
  return new DynamicStructuredTool({
    name,
    description,
    // A copy with an object root (chat model APIs refuse a root union); otherwise the schema as written.
    schema: objectRoot(definition.parameters, new ChangeLog(name)),
    responseFormat: 'content_and_artifact',
    // LangChain checks the arguments against the schema before the call; the model should read why they failed.
    verboseParsingErrors: true,
    func: async (args: unknown, _runManager, config) => {
      // Only the caller's abort rejects (the agent ends its run); every other failure is a result.
      const output = await target.call(name, args, { signal: config?.signal, timeoutMs: options.timeoutMs });
      const shown = langChainToolContent(output, options.contentBlocks);
      const content = output.isError && shown === '' ? EMPTY_FAILURE_TEXT : shown;
      const artifact: LangChainToolArtifact = { output: output.output, isError: output.isError };
      const id = toolCallId(config);
      if (output.isError && id !== undefined) {
        // LangChain marks every returned result `status: 'success'` and an error only when
        // the tool throws, which also drops the artifact and ends the run where tool errors
        // are not handled. So a failed call is returned as a finished `ToolMessage`, which
        // LangChain passes on as it is (it is a direct tool output), status and artifact kept.
        return [new ToolMessage({ content, artifact, status: 'error', tool_call_id: id, name }), artifact];
      }
      return [content, artifact];
    },
  });
}
