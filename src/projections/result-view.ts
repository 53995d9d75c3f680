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

/** What a failed result with nothing to show says (Anthropic refuses an error result without content). */
export const EMPTY_FAILURE_TEXT = 'The tool failed without saying why.';

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

/** Text parts and accepted media in order; refused media as notices in place, or (`inPlace: false`) collected. */
function arrange(presentation: ToolPresentation, accepts: (mimeType: string) => boolean, inPlace: boolean): { pieces: ViewPiece[]; refused: string[] } {
  const pieces: ViewPiece[] = [];
  const refused: string[] = [];
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
    } else if (inPlace) text.push(mediaNotice(part.mimeType));
    else refused.push(part.mimeType);
  }
  flush();
  return { pieces, refused };
}

const textBytesOf = (pieces: ViewPiece[]): number => pieces.reduce((sum, piece) => sum + (piece.type === 'text' ? utf8Bytes(piece.text) : 0), 0);

/** One notice for every refused media part, however many there are. */
function combinedNotice(refused: string[]): string {
  return `[${refused.length} tool media omitted (${[...new Set(refused)].join(', ').slice(0, 64)}): unsupported by this model API]`;
}

/** `pieces` with their text cut (from the end, marker added) to at most `limit` bytes in all. */
function cutTexts(pieces: ViewPiece[], limit: number): ViewPiece[] {
  let room = limit - utf8Bytes(TRUNCATION_MARKER);
  let cut = false;
  const out: ViewPiece[] = [];
  for (const piece of pieces) {
    if (piece.type !== 'text') out.push(piece);
    else if (!cut && utf8Bytes(piece.text) <= room) {
      room -= utf8Bytes(piece.text);
      out.push(piece);
    } else if (!cut) {
      cut = true;
      const kept = cutUtf8(piece.text.endsWith(TRUNCATION_MARKER) ? piece.text.slice(0, -TRUNCATION_MARKER.length) : piece.text, Math.max(0, room));
      out.push({ type: 'text', text: kept + TRUNCATION_MARKER });
    }
  }
  return out;
}

/**
 * The presentation's parts for an API that accepts the media `accepts` says yes to:
 * adjacent text (and a notice in place of each refused media part) joined by newlines,
 * media in place. When the notices would take the text past the presentation's
 * `textBytes`, one notice stands for all of them at the end, and the text is cut (with
 * the truncation marker) if even that does not fit.
 */
export function viewPieces(presentation: ToolPresentation, accepts: (mimeType: string) => boolean): ViewPiece[] {
  const inPlace = arrange(presentation, accepts, true).pieces;
  const limit = presentation.textBytes;
  if (limit === undefined || textBytesOf(inPlace) <= limit) return inPlace;
  const { pieces, refused } = arrange(presentation, accepts, false);
  const notice = combinedNotice(refused);
  const last = pieces.at(-1);
  const room = limit - utf8Bytes(notice) - 1;
  const fitted = textBytesOf(pieces) <= room ? pieces : cutTexts(pieces, room);
  const tail = fitted.at(-1);
  if (tail?.type === 'text' && last?.type === 'text') return [...fitted.slice(0, -1), { type: 'text', text: `${tail.text}\n${notice}` }];
  return [...fitted, { type: 'text', text: notice }];
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
