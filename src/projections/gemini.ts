/**
 * The Gemini API (`generateContent`): function declarations and `functionResponse`
 * parts, chosen by model name. Gemini 2.5 and later take the schema as JSON Schema
 * (`parametersJsonSchema`); older and unknown models get the OpenAPI subset
 * (`parameters`), which every Gemini model accepts. Gemini 3 and later read images and
 * PDFs inside a function response (`functionResponse.parts`); other models get text,
 * with a notice for each media part.
 */
import type { ToolDefinition, ToolOutput } from '../core/tool.js';
import { type GeminiSchema, lowerGemini } from './gemini-schema.js';
import { documentName, presentationOf, viewPieces, viewText } from './result-view.js';
import { objectRoot } from './root-object.js';
import { ChangeLog, isSchemaNode } from './schema-tools.js';
import { runCalls } from './turn.js';
import type { ModelToolCall, ProjectedTools, RunToolCallsOptions, ToolCallTarget, ToolResultOptions } from './types.js';

export type { GeminiSchema } from './gemini-schema.js';

/** Which Gemini model the request is for, and overrides of what its name implies. */
export interface GeminiModelOptions {
  /** The model name as sent (`gemini-3-pro-preview`, `models/gemini-2.5-flash`, ...). */
  model: string;
  /**
   * How schemas are sent: `json-schema` (`parametersJsonSchema`) or `openapi`
   * (`parameters`, the OpenAPI subset). Default: `json-schema` for Gemini 2.5 and later,
   * `openapi` for older and unknown model names.
   */
  schema?: 'json-schema' | 'openapi';
  /** Whether images and PDFs go inside `functionResponse.parts`. Default: for Gemini 3 and later only. */
  responseParts?: boolean;
}

/** A function declaration (in `tools[].functionDeclarations` of the request). */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  /** The JSON Schema of the arguments (Gemini 2.5 and later); absent for a tool without arguments. */
  parametersJsonSchema?: Record<string, unknown>;
  /** The OpenAPI-subset schema of the arguments; absent for a tool without arguments (Gemini refuses an empty object). */
  parameters?: GeminiSchema;
}

/** One entry of a request's `tools`. */
export interface GeminiTool {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** A part of a function response (Gemini 3): inline media with a name the response can refer to. */
export interface GeminiFunctionResponsePart {
  inlineData: { mimeType: string; data: string; displayName: string };
}

/** The `functionResponse` part answering one `functionCall` (sent in the next `user` content). */
export interface GeminiToolResult {
  functionResponse: {
    /** The call's id, echoed when the model gave one (Gemini 3 matches responses by it). */
    id?: string;
    name: string;
    /** `{ output }` for a result, `{ error }` for a tool-level failure, as the Gemini API documents. */
    response: Record<string, unknown>;
    parts?: GeminiFunctionResponsePart[];
  };
}

/** The call a Gemini result answers: the model's optional call id and the function name. */
export interface GeminiCallRef {
  id?: string;
  name: string;
}

/** A `generateContent` answer (`GenerateContentResponse`), a `Content`, or its parts. */
export type GeminiModelResponse =
  | { candidates?: ReadonlyArray<{ content?: { parts?: readonly unknown[] } }> }
  | { parts?: readonly unknown[] }
  | readonly unknown[];

/** Media a Gemini 3 function response takes inline (the Gemini API's list). */
const RESPONSE_MEDIA = new Set(['image/png', 'image/jpeg', 'image/webp', 'application/pdf', 'text/plain']);

/** `[major, minor]` of a Gemini model name, or `undefined` for a name that is not `gemini-<version>...`. */
function geminiVersion(model: string): [number, number] | undefined {
  const match = /^(?:.*\/)?gemini-(\d+)(?:\.(\d+))?(?:-|$)/.exec(model.trim().toLowerCase());
  return match === null ? undefined : [Number(match[1]), Number(match[2] ?? 0)];
}

/** What a model name implies, with the caller's overrides. */
export function geminiModelFeatures(options: GeminiModelOptions): { schema: 'json-schema' | 'openapi'; responseParts: boolean } {
  const version = geminiVersion(options.model);
  const atLeast = (major: number, minor: number): boolean => version !== undefined && (version[0] > major || (version[0] === major && version[1] >= minor));
  return {
    schema: options.schema ?? (atLeast(2, 5) ? 'json-schema' : 'openapi'),
    responseParts: options.responseParts ?? atLeast(3, 0),
  };
}

function declaration(definition: ToolDefinition, schema: 'json-schema' | 'openapi', log: ChangeLog): GeminiFunctionDeclaration {
  const root = objectRoot(definition.parameters, log);
  const out: GeminiFunctionDeclaration = { name: definition.name, description: definition.description };
  const hasProperties = isSchemaNode(root.properties) && Object.keys(root.properties).length > 0;
  // A map-like root (keys of its own choosing) has arguments without properties: JSON Schema can say so.
  const takesAnyKeys = root.additionalProperties !== undefined && root.additionalProperties !== false;
  if (!hasProperties && !(takesAnyKeys && schema === 'json-schema')) {
    log.add('dropped', '', takesAnyKeys
      ? 'the schema was left out: its arguments are free-form keys, which Gemini\'s OpenAPI subset cannot express without properties (use a Gemini 2.5 or later model, or `schema: "json-schema"`).'
      : 'the schema was left out: the tool takes no arguments, and Gemini refuses an object schema without properties.');
    return out;
  }
  if (schema === 'json-schema') out.parametersJsonSchema = root;
  else out.parameters = lowerGemini(root, log);
  return out;
}

function resultItem(call: GeminiCallRef, output: ToolOutput, options: GeminiModelOptions & ToolResultOptions): GeminiToolResult {
  const presentation = presentationOf(output, options);
  const key = output.isError ? 'error' : 'output';
  const head = { ...(call.id === undefined || call.id === '' ? {} : { id: call.id }), name: call.name };
  if (!geminiModelFeatures(options).responseParts) return { functionResponse: { ...head, response: { [key]: viewText(presentation) } } };
  const pieces = viewPieces(presentation, (mimeType) => RESPONSE_MEDIA.has(mimeType));
  const text = pieces.filter((piece) => piece.type === 'text').map((piece) => piece.text).join('\n');
  const media = pieces.filter((piece) => piece.type === 'media');
  const parts = media.map((piece, index): GeminiFunctionResponsePart => ({ inlineData: { mimeType: piece.mimeType, data: piece.data, displayName: documentName(piece, index) } }));
  if (parts.length === 0) return { functionResponse: { ...head, response: { [key]: text } } };
  // The response names its parts, so the model can tell which media belongs to the result.
  const refs = parts.map((part) => ({ $ref: part.inlineData.displayName }));
  return { functionResponse: { ...head, response: { [key]: text, media: refs }, parts } };
}

function toolCalls(response: GeminiModelResponse): ModelToolCall[] {
  let parts: readonly unknown[] | undefined;
  if (Array.isArray(response)) parts = response;
  else if ('candidates' in response) parts = response.candidates?.[0]?.content?.parts;
  else parts = (response as { parts?: readonly unknown[] }).parts;
  const calls: ModelToolCall[] = [];
  for (const item of parts ?? []) {
    const call = (item as { functionCall?: { id?: unknown; name?: unknown; args?: unknown } }).functionCall;
    if (call !== undefined && typeof call.name === 'string') calls.push({ id: typeof call.id === 'string' ? call.id : '', name: call.name, arguments: call.args });
  }
  return calls;
}

/** The Gemini projections bound to one model: the same members and signatures as the other targets. */
export interface GeminiModelProjection {
  tools(definitions: readonly ToolDefinition[]): ProjectedTools<GeminiTool>;
  toolResult(call: GeminiCallRef, output: ToolOutput, options?: ToolResultOptions): GeminiToolResult;
  toolCalls(response: GeminiModelResponse): ModelToolCall[];
  runToolCalls(host: ToolCallTarget, response: GeminiModelResponse, options?: RunToolCallsOptions & ToolResultOptions): Promise<GeminiToolResult[]>;
}

/** Projections for the Gemini API; every member takes the `model` the request is for (or use `gemini.forModel`). */
export const gemini = {
  /** The definitions as one `tools` entry of function declarations (an empty list for no definitions). */
  tools(definitions: readonly ToolDefinition[], options: GeminiModelOptions): ProjectedTools<GeminiTool> {
    const { schema } = geminiModelFeatures(options);
    const logs = definitions.map((definition) => new ChangeLog(definition.name));
    const declarations = definitions.map((definition, index) => declaration(definition, schema, logs[index]!));
    return { tools: declarations.length === 0 ? [] : [{ functionDeclarations: declarations }], changes: logs.flatMap((log) => log.changes) };
  },
  /** The `functionResponse` part answering `call` (its optional id and name). */
  toolResult: resultItem,
  /** The `functionCall` parts of the first candidate, in order (`id` is `''` when the model gave none). */
  toolCalls,
  /** Runs every `functionCall` of `response` on `host` and returns their `functionResponse` parts, in order, for one `user` content. */
  runToolCalls(host: ToolCallTarget, response: GeminiModelResponse, options: GeminiModelOptions & RunToolCallsOptions & ToolResultOptions): Promise<GeminiToolResult[]> {
    return runCalls(host, toolCalls(response), options, (call, output) => resultItem(call, output, options));
  },
  /** The members bound to `model` (and any overrides), so switching from another target is switching one name. */
  forModel(model: string, overrides: Omit<GeminiModelOptions, 'model'> = {}): GeminiModelProjection {
    const bound: GeminiModelOptions = { ...overrides, model };
    return {
      tools: (definitions) => gemini.tools(definitions, bound),
      toolResult: (call, output, options = {}) => resultItem(call, output, { ...options, ...bound }),
      toolCalls,
      runToolCalls: (host, response, options = {}) => gemini.runToolCalls(host, response, { ...options, ...bound }),
    };
  },
};
