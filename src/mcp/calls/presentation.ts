/**
 * The bounded model view of an MCP tool result (the neutral `ToolPresentation`):
 * structured content first, then each content block in order. Text is capped with a
 * truncation marker, media (images, audio, embedded PDF documents) by count and decoded size, unknown content becomes an
 * explicit notice, and `_meta` never enters the view. The raw result is not modified.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { cutUtf8, utf8Bytes } from '../../core/budget.js';
import { INLINE_IMAGE_TYPES, TRUNCATION_MARKER, type ToolPresentation, type ToolPresentationPart, toolPresentation } from '../../core/presentation.js';

export { TRUNCATION_MARKER };

export interface PresentationLimits {
  /** Most text bytes in the view, marker included (at least 256). */
  outputTextBytes: number;
  /** Most decoded media bytes in the view. */
  outputMediaBytes: number;
  /** Most media parts in the view. */
  outputMediaItems: number;
}

export const MEDIA_OMITTED_NOTICE = '[tool media omitted: invalid encoding, type, or media budget exceeded]';
export const UNSUPPORTED_CONTENT_NOTICE = '[unsupported MCP content retained in raw result]';
/** Bytes kept free for the truncation marker. */
const MARKER_RESERVE = 64;
const MAX_MIME_BYTES = 128;
/** Embedded resources whose bytes a model API can take as a document part. */
const INLINE_DOCUMENT_TYPES = new Set(['application/pdf']);

/** Media the view carries inline: common images and any audio from content blocks, PDF documents from embedded resources. */
function inlineMedia(mimeType: string, source: 'content' | 'resource'): boolean {
  if (source === 'resource') return INLINE_DOCUMENT_TYPES.has(mimeType);
  return INLINE_IMAGE_TYPES.has(mimeType) || mimeType.startsWith('audio/');
}
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, index) => jsonEqual(item, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => key in right && jsonEqual(left[key], right[key]));
}

/** Whether a text block is only the serialised copy of the structured content (the spec's compatibility copy). */
function repeatsStructured(text: string, structured: unknown): boolean {
  if (structured === undefined) return false;
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    return jsonEqual(JSON.parse(trimmed), structured);
  } catch {
    return false;
  }
}

class ViewBuilder {
  private readonly parts: ToolPresentationPart[] = [];
  private pendingText: string[] = [];
  private textBytes = 0;
  private truncated = false;
  private mediaItems = 0;
  private mediaBytes = 0;

  constructor(private readonly limits: PresentationLimits) {}

  text(text: string): void {
    if (this.truncated) return;
    const budget = this.limits.outputTextBytes - MARKER_RESERVE;
    const separator = this.textBytes === 0 && this.pendingText.length === 0 ? 0 : 1;
    const size = utf8Bytes(text) + separator;
    if (this.textBytes + size <= budget) {
      this.pendingText.push(text);
      this.textBytes += size;
      return;
    }
    const room = budget - this.textBytes - separator;
    if (room > 0) this.pendingText.push(cutUtf8(text, room));
    this.truncated = true;
  }

  /** Adds a media part of an accepted type (see `inlineMedia`) under the media budgets, or the omission notice. */
  media(mimeType: string, data: string, source: 'content' | 'resource' = 'content'): void {
    const remaining = this.limits.outputMediaBytes - this.mediaBytes;
    const acceptable =
      utf8Bytes(mimeType) <= MAX_MIME_BYTES &&
      inlineMedia(mimeType, source) &&
      this.mediaItems < this.limits.outputMediaItems &&
      data.length <= (remaining * 4) / 3 + 4 &&
      BASE64.test(data);
    const decoded = acceptable ? Buffer.from(data, 'base64').length : 0;
    if (!acceptable || decoded === 0 || decoded > remaining) {
      this.text(MEDIA_OMITTED_NOTICE);
      return;
    }
    this.flush();
    this.mediaItems++;
    this.mediaBytes += decoded;
    this.parts.push({ type: 'media', mimeType, data });
  }

  private flush(): void {
    if (this.pendingText.length === 0) return;
    const previous = this.parts.at(-1);
    const text = this.pendingText.join('\n');
    this.pendingText = [];
    if (previous?.type === 'text') previous.text += `\n${text}`;
    else this.parts.push({ type: 'text', text });
  }

  build(): ToolPresentation {
    if (this.truncated) this.pendingText.push(TRUNCATION_MARKER.slice(1));
    this.flush();
    return { ...toolPresentation(this.parts), textBytes: this.limits.outputTextBytes };
  }
}

/** The bounded model view of a `tools/call` result. */
export function presentResult(result: CallToolResult, limits: PresentationLimits): ToolPresentation {
  const view = new ViewBuilder(limits);
  const structured = result.structuredContent;
  if (structured !== undefined) view.text(JSON.stringify(structured));
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        if (!repeatsStructured(block.text, structured)) view.text(block.text);
        break;
      case 'image':
      case 'audio':
        view.media(block.mimeType, block.data);
        break;
      case 'resource': {
        const resource = block.resource as { uri: string; text?: unknown; blob?: unknown; mimeType?: unknown };
        if (typeof resource.text === 'string') view.text(resource.text);
        // A PDF travels as a document part (Anthropic, OpenAI Responses and Gemini 3 read them); other blobs stay in the raw result.
        else if (typeof resource.blob === 'string' && typeof resource.mimeType === 'string' && INLINE_DOCUMENT_TYPES.has(resource.mimeType)) {
          view.media(resource.mimeType, resource.blob, 'resource');
        } else view.text(`Resource: ${resource.uri}`);
        break;
      }
      case 'resource_link':
        view.text(`Resource: ${block.uri}`);
        break;
      default:
        view.text(UNSUPPORTED_CONTENT_NOTICE);
    }
  }
  return view.build();
}
