/**
 * A neutral `ToolOutput` as the Vercel AI SDK's tool-result output (what a tool's
 * `toModelOutput` returns): plain `text` when the result is text only (every provider
 * takes it), a `content` list with images as `file` parts when it carries images (the
 * form AI SDK 7 hands to providers, which turn it into their native image blocks), and
 * `error-text` for a tool-level error (providers that can flag a failed result, such as
 * Anthropic's `is_error`, do so). Base64 never appears inside text.
 */
import type { Tool } from 'ai';
import type { ToolOutput } from '../core/tool.js';
import { EMPTY_FAILURE_TEXT, presentationOf, viewText } from '../projections/result-view.js';
import { isImage, outputPieces } from './source.js';

/** The SDK's tool-result output (`ToolResultOutput`, which `ai` does not export by name). */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<Tool['toModelOutput']>>>;

/** Whether a value is a neutral `ToolOutput` (what the adapter's tools return from `execute`). */
export function isToolOutput(value: unknown): value is ToolOutput {
  return typeof value === 'object' && value !== null && 'output' in value && typeof (value as { isError?: unknown }).isError === 'boolean';
}

/**
 * The model's view of `value`. It is normally the `ToolOutput` the tool's `execute`
 * returned; anything else (a value restored from a UI message that lost its shape) is
 * shown as a raw output would be: bounded JSON text.
 */
export function aiSdkModelOutput(value: unknown): AiSdkModelOutput {
  const output: ToolOutput = isToolOutput(value) ? value : { output: value, isError: false };
  // An error result is one text: `error-text` is the form providers flag as failed, and
  // it carries no media (an error's images, if any, become notices).
  if (output.isError) return { type: 'error-text', value: joinedText(output).trim() === '' ? EMPTY_FAILURE_TEXT : joinedText(output) };
  const pieces = outputPieces(output, isImage);
  if (pieces.every((piece) => piece.type === 'text')) return { type: 'text', value: joinedText(output) };
  return {
    type: 'content',
    value: pieces.map((piece) =>
      piece.type === 'text'
        ? { type: 'text' as const, text: piece.text }
        : { type: 'file' as const, mediaType: piece.mimeType, data: { type: 'data' as const, data: piece.data } },
    ),
  };
}

/** The output as one text, every media part a notice. */
function joinedText(output: ToolOutput): string {
  return viewText(presentationOf(output));
}
