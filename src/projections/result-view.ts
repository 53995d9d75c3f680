/**
 * A tool output as the ordered pieces one model API can take: runs of text (with a
 * notice in place of each media part the API cannot read) and the media it can. The
 * neutral `ToolOutput` is only read, never modified, so a history keeps its media for
 * replay to another model.
 */
import { cutUtf8, KiB, utf8Bytes } from '../core/budget.js';
import {
  isToolPresentation,
  mediaNotice,
  textPresentation,
  TRUNCATION_MARKER,
  type ToolMediaPart,
  type ToolPresentation,
} from '../core/presentation.js';
import type { ToolOutput } from '../core/tool.js';
import type { ToolResultOptions } from './types.js';

/** The default of `rawOutputTextBytes`: the host's default `limits.outputTextBytes`. */
export const DEFAULT_RAW_OUTPUT_TEXT_BYTES = 32 * KiB;
/** The smallest accepted `rawOutputTextBytes`: room for some text and the marker. */
const MIN_RAW_OUTPUT_TEXT_BYTES = 256;

export type ViewPiece = { type: 'text'; text: string } | ToolMediaPart;

/** A raw output as text: strings as they are, anything else as JSON. */
function rawText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // A cycle or a BigInt: the application's own value, which JSON cannot carry.
    return '[tool output is not JSON-serialisable; retained by host]';
  }
}

/**
 * The presentation a model receives for `output`: its `modelOutput` as it is (already
 * bounded by the server's limits), else its raw output as text cut to
 * `rawOutputTextBytes` with the truncation marker.
 */
export function presentationOf(output: ToolOutput, options: ToolResultOptions = {}): ToolPresentation {
  if (isToolPresentation(output.modelOutput)) return output.modelOutput;
  const limit = Math.max(MIN_RAW_OUTPUT_TEXT_BYTES, options.rawOutputTextBytes ?? DEFAULT_RAW_OUTPUT_TEXT_BYTES);
  const text = rawText(output.output);
  if (utf8Bytes(text) <= limit) return textPresentation(text);
  return textPresentation(cutUtf8(text, limit - utf8Bytes(TRUNCATION_MARKER)) + TRUNCATION_MARKER);
}

/**
 * The presentation's parts for an API that accepts the media `accepts` says yes to:
 * adjacent text (and notices for refused media) joined by newlines, media in place.
 */
export function viewPieces(presentation: ToolPresentation, accepts: (mimeType: string) => boolean): ViewPiece[] {
  const pieces: ViewPiece[] = [];
  let text: string[] = [];
  const flush = (): void => {
    if (text.length > 0) pieces.push({ type: 'text', text: text.join('\n') });
    text = [];
  };
  for (const part of presentation.parts) {
    if (part.type === 'text') text.push(part.text);
    else if (accepts(part.mimeType)) {
      flush();
      pieces.push({ type: 'media', mimeType: part.mimeType, data: part.data });
    } else text.push(mediaNotice(part.mimeType));
  }
  flush();
  return pieces;
}

/** The presentation as one text, every media part a notice (Chat Completions, older Gemini models). */
export function viewText(presentation: ToolPresentation): string {
  const pieces = viewPieces(presentation, () => false);
  return pieces.length === 0 ? '' : (pieces[0] as { text: string }).text;
}

/** A data URL for a media part (what OpenAI's image and file inputs take). */
export function dataUrl(part: ToolMediaPart): string {
  return `data:${part.mimeType};base64,${part.data}`;
}

/** A file name for the n-th document of a result (APIs that take files want one). */
export function documentName(part: ToolMediaPart, index: number): string {
  const extension = part.mimeType === 'application/pdf' ? 'pdf' : (part.mimeType.split('/')[1] ?? 'bin').replace(/[^a-z0-9]/g, '');
  return `tool-result-${index + 1}.${extension}`;
}
