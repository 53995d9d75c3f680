/**
 * Framework-neutral tool contracts. Nothing in `core/` knows about MCP: a tool is a
 * name, a description and a JSON Schema for its arguments, and a call returns a
 * {@link ToolOutput}.
 */
import type { ToolPresentation } from './presentation.js';

/** A JSON Schema object, kept exactly as its author wrote it. */
export type JsonSchema = Record<string, unknown>;

/** What a model sees of a tool: a function-calling definition. */
export interface ToolDefinition {
  /** Model-facing name: `[a-z][a-z0-9_-]*`, at most 64 characters. */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: JsonSchema;
  /**
   * Whether the schema is written for strict structured-output modes (every property
   * required, `additionalProperties: false`). MCP tools are never strict.
   */
  strict?: boolean;
}

/** The result of one tool call. */
export interface ToolOutput<T = unknown> {
  /** The complete, audited result value (for an MCP tool, the full envelope). Never truncated. */
  output: T;
  /** The bounded view a model receives. When absent, projections show `output` as JSON text. */
  modelOutput?: ToolPresentation;
  /** Whether the call failed at tool level; the model reads the error and can try another path. */
  isError: boolean;
}

/** Options accepted by every tool call. */
export interface ToolCallOptions {
  /** Cancels the call (it rejects with the signal's reason); an MCP call is cancelled on the wire too. */
  signal?: AbortSignal;
  /**
   * A deadline for this call, in milliseconds. An MCP call uses the smaller of this and
   * its server's `timeouts.callMs`. Unlike `signal`, expiry is a tool-level timeout result
   * the model can read. Default: none.
   */
  timeoutMs?: number;
}

/** Metadata a static tool may declare to join a capability group. */
export interface ToolGroupInfo {
  id: string;
  title: string;
  description: string;
  instructions?: string;
}

/** A tool implemented in-process by the application. */
export interface StaticTool {
  definition: ToolDefinition;
  /** The capability group this tool belongs to, if any. */
  group?: ToolGroupInfo;
  /** Called once by `ToolHost.init()`, before any provider initialises. */
  init?(options: { signal?: AbortSignal }): Promise<void> | void;
  call(args: Record<string, unknown>, options: ToolCallOptions): Promise<ToolOutput> | ToolOutput;
  /** Called by `ToolHost.close()`. */
  close?(): Promise<void> | void;
}

const FUNCTION_NAME = /^[a-z][a-z0-9_-]*$/;

/** Longest model-facing tool name; the common limit of the OpenAI, Anthropic and Gemini APIs. */
export const MAX_TOOL_NAME_LENGTH = 64;

/**
 * A name as echoed back to the model in an error or a report: a made-up name can be any
 * length, so it is cut to twice the longest tool name.
 */
export function echoedName(name: string): string {
  const most = 2 * MAX_TOOL_NAME_LENGTH;
  return name.length > most ? `${name.slice(0, most)}...` : name;
}

/**
 * Why `name` is not a valid model-facing tool name, or `undefined` when it is.
 * Valid: lowercase ASCII letter first, then `[a-z0-9_-]`, 1 to 64 characters.
 */
export function functionNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > MAX_TOOL_NAME_LENGTH) return `the name is longer than ${MAX_TOOL_NAME_LENGTH} characters`;
  if (!FUNCTION_NAME.test(name)) return 'the name must start with a-z and contain only a-z, 0-9, _ and -';
  return undefined;
}

/** Whether `name` is a valid model-facing tool name. */
export function isValidFunctionName(name: string): boolean {
  return functionNameProblem(name) === undefined;
}
