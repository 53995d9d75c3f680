/**
 * What every projection shares: the call a result answers, the report of schema
 * changes, and the options of a whole turn. Projections are pure: no network, no
 * provider SDK at run time; their item types mirror the APIs' request types.
 */
import type { ToolCallOptions, ToolDefinition, ToolOutput } from '../core/tool.js';

/** The provider's tool call a result answers: its call id and the tool name the model used. */
export interface ToolCallRef {
  /** The provider's call id (`call_id`, `tool_call_id`, `tool_use_id`, or Gemini's optional `id`). */
  id: string;
  name: string;
}

/** One tool call read from a model response, before it runs. */
export interface ModelToolCall extends ToolCallRef {
  /** The arguments as the model sent them: a JSON string (OpenAI) or an object (Anthropic, Gemini). */
  arguments: unknown;
}

/** How a projection changed one tool's schema; `changes` lists every one, so an application can log them. */
export interface SchemaChange {
  /** The model-facing tool name. */
  tool: string;
  /** JSON Pointer into the tool's original parameters schema (`''` is its root). */
  path: string;
  /**
   * `dropped`: a keyword the API does not accept was removed (the schema accepts more).
   * `rewritten`: a keyword was replaced by what the API accepts (`oneOf` → `anyOf`,
   * an optional property made required and nullable, `const` → `enum`, `$ref` inlined).
   * `added`: something the API requires was added (`type: "object"`, `additionalProperties: false`).
   * `cut`: a recursive `$ref` was cut where it would repeat.
   * `not_strict`: strict mode cannot express the schema, so the tool is sent non-strict.
   */
  kind: 'dropped' | 'rewritten' | 'added' | 'cut' | 'not_strict';
  /** What happened, as a sentence. */
  detail: string;
}

/** A projected tool list and what was changed to make it acceptable. */
export interface ProjectedTools<T> {
  tools: T[];
  changes: SchemaChange[];
}

/** What runs a turn's tool calls: a `ToolHost` or a `ToolSession`. */
export interface ToolCallTarget {
  call(name: string, args: unknown, options?: ToolCallOptions): Promise<ToolOutput>;
  /** Used to read `null` sent for an optional property as "not given" (see `runToolCalls`). */
  definitions?(): ToolDefinition[];
}

/** Options of `runToolCalls` on every projection. */
export interface RunToolCallsOptions extends ToolCallOptions {
  /**
   * `parallel` (the default) starts every call of the turn at once, as the model asked
   * for them together; `sequential` runs them one after another in the model's order.
   * Results come back in the model's order either way, and the server's own
   * concurrency policy still applies.
   */
  concurrency?: 'parallel' | 'sequential';
  /**
   * Called with each call's neutral output as it completes (so in completion order;
   * `index` is the call's place in the model's order), for a history that can be
   * replayed to another model. Arguments that were not JSON are reported too, with
   * their `invalid_arguments` result. An exception it throws is ignored: the call has
   * already run, and its result item is still returned.
   */
  onOutput?(call: ModelToolCall, output: ToolOutput, index: number): void;
}

/** Options of `toolResult` shared by every projection. */
export interface ToolResultOptions {
  /**
   * Most UTF-8 bytes of text taken from a raw `output` that has no `modelOutput` (it is
   * shown as JSON), truncation marker included. Default: 32 KiB, the host's default
   * `limits.outputTextBytes`. A `modelOutput` is already bounded and is never cut again.
   */
  rawOutputTextBytes?: number;
}
