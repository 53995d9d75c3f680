/**
 * The neutral model view of a tool result: ordered text and media parts. Provider
 * projections (OpenAI, Anthropic, Gemini) turn it into each API's own shape; the
 * neutral view itself is what a host persists, so it can be replayed to another model.
 */

/** A text part. */
export interface ToolTextPart {
  type: 'text';
  text: string;
}

/** An inline media part: base64 data with its MIME type (images, audio, PDF documents). */
export interface ToolMediaPart {
  type: 'media';
  mimeType: string;
  /** Base64 (standard alphabet) of the decoded bytes. */
  data: string;
}

export type ToolPresentationPart = ToolTextPart | ToolMediaPart;

/** A bounded, explicitly tagged view of a tool result for a model. */
export interface ToolPresentation {
  type: 'ToolPresentation';
  parts: ToolPresentationPart[];
  /**
   * The text budget the view was built under (UTF-8 bytes, truncation marker included),
   * when it had one: a projection that replaces media by notices keeps within it.
   */
  textBytes?: number;
}

/** Builds a presentation from parts. */
export function toolPresentation(parts: ToolPresentationPart[]): ToolPresentation {
  return { type: 'ToolPresentation', parts };
}

/** A presentation holding one text part. */
export function textPresentation(text: string): ToolPresentation {
  return toolPresentation([{ type: 'text', text }]);
}

/** Whether `value` is an explicitly tagged presentation (ordinary JSON never is). */
export function isToolPresentation(value: unknown): value is ToolPresentation {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { type?: unknown; parts?: unknown };
  return candidate.type === 'ToolPresentation' && Array.isArray(candidate.parts);
}

/** The images the view carries inline, which every model API that takes images accepts. */
export const INLINE_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

/** Appended to a text that was cut to its budget; projections keep it where it is. */
export const TRUNCATION_MARKER = '\n[tool output truncated; full result retained by host]';

/** The text that stands in for a media part a model API cannot take. */
export function mediaNotice(mimeType: string): string {
  return `[${mimeType} tool media omitted: unsupported by this model API]`;
}

/**
 * The presentation as plain text, for APIs that take only text: text parts joined by
 * newlines, each media part replaced by a notice. Base64 never appears.
 */
export function presentationText(presentation: ToolPresentation): string {
  return presentation.parts.map((part) => (part.type === 'text' ? part.text : mediaNotice(part.mimeType))).join('\n');
}
