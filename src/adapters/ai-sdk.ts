/**
 * `mcp-fleet/ai-sdk`: a host's tools as a Vercel AI SDK `ToolSet` for `generateText`,
 * `streamText` and `ToolLoopAgent`, with the host's call semantics (the run's abort
 * signal cancels the MCP call on the wire; a tool-level error is a result the model
 * reads) and results as the SDK's model output (images as native image parts).
 *
 * A conversation's `ToolSession` grows while the loop runs: after the model calls
 * `tools_select`, the next step must offer the new tools. AI SDK 7's `prepareStep`
 * can narrow a step to `activeTools` but cannot return `tools`, and every tool the
 * model calls must be in the run's `tools` record. So `aiSdkSession` returns a record
 * that grows in place (the SDK reads it afresh at every step) and a `prepareStep` that
 * first adds the session's new definitions to it, then sets `activeTools` to exactly
 * the session's definitions: the model is offered those and no others, and no schema
 * of an unselected tool is sent.
 */
import { dynamicTool, jsonSchema, type JSONSchema7, type PrepareStepFunction, type ToolSet } from 'ai';
import type { ToolDefinition, ToolOutput } from '../core/tool.js';
import { withoutStrictNulls } from '../projections/arguments.js';
import { openaiFunction } from '../projections/openai-schema.js';
import type { ModelToolCall } from '../projections/types.js';
import { aiSdkModelOutput } from './ai-sdk-output.js';
import { type AdapterTarget, adapterTarget, type ToolSource } from './source.js';

export { aiSdkModelOutput, type AiSdkModelOutput } from './ai-sdk-output.js';
export type { ToolSource } from './source.js';

/** Options of `aiSdkTools` and `aiSdkSession`. */
export interface AiSdkToolsOptions {
  /**
   * A deadline for each call, in milliseconds; its expiry is a tool-level timeout
   * result the model reads, and the MCP request is cancelled. Default: none (an MCP
   * call still has its server's `timeouts.callMs`). Unlike the SDK's own per-tool
   * `timeout`, which aborts the call and reports it as the SDK's tool error.
   */
  timeoutMs?: number;
  /**
   * Strict mode (structured tool inputs) for providers that honour a tool's `strict`
   * flag, such as OpenAI. `true` lowers every schema to the strict subset (the rules of
   * `mcp-fleet/projections`; a schema strict mode cannot express is sent non-strict),
   * and reads the `null`s a strict model sends for left-out optional properties as
   * "not given". `false` sends every tool non-strict. Default: each definition's own
   * `strict` flag (the discovery helpers are written strict; MCP tools are not), so
   * server schemas go out exactly as written.
   */
  strict?: boolean;
  /**
   * Called with every call's neutral output once it completes, before the SDK turns it
   * into the model's view: the complete audited result (media included), for a history
   * an application persists or replays to another model. `call.id` is the SDK's
   * `toolCallId`, `call.arguments` the input as the model sent it. Default: none.
   * An exception it throws becomes the SDK's tool error for that call.
   */
  onOutput?(call: ModelToolCall, output: ToolOutput): void;
}

/** Options of `aiSdkSession`. */
export interface AiSdkSessionOptions extends AiSdkToolsOptions {
  /**
   * The application's own AI SDK tools, kept in the same record and offered at every
   * step (a host tool of the same name is left out). Pass them here rather than
   * spreading the record: the record grows in place, and a copy would not. Default: none.
   */
  extraTools?: ToolSet;
}

/** What `aiSdkSession` returns: pass both to `generateText`, `streamText` or a `ToolLoopAgent`. */
export interface AiSdkSession {
  /**
   * Every tool the source has offered so far (and `extraTools`), grown in place by
   * `prepareStep`. Pass this object itself as `tools`, not a copy.
   */
  readonly tools: ToolSet;
  /**
   * Adds the source's new definitions to `tools` and returns `activeTools`: exactly the
   * source's current definitions (for a session, the helpers and the selected tools)
   * and `extraTools`. To combine it with a `prepareStep` of your own, call it from
   * yours and keep its `activeTools`.
   */
  readonly prepareStep: PrepareStepFunction<ToolSet>;
}

/** One definition as an SDK tool: the host's name and description, a copy of its schema. */
function sdkTool(target: AdapterTarget, definition: ToolDefinition, options: AiSdkToolsOptions): ToolSet[string] {
  const { fn } = openaiFunction(definition, { strict: options.strict });
  // Strict tools get the lowered schema; the others a copy of the host's with an object
  // root (providers refuse a root union), otherwise as written.
  const schema = structuredClone(fn.parameters) as JSONSchema7;
  return dynamicTool({
    description: definition.description,
    inputSchema: jsonSchema(schema),
    strict: fn.strict,
    execute: async (input, { abortSignal, toolCallId }) => {
      // Only a strict schema makes the model send nulls for what it leaves out.
      const args = fn.strict ? withoutStrictNulls(() => definition.parameters, input) : input;
      const output = await target.call(definition.name, args, { signal: abortSignal, timeoutMs: options.timeoutMs });
      options.onOutput?.({ id: toolCallId, name: definition.name, arguments: input }, output);
      return output;
    },
    toModelOutput: ({ output }) => aiSdkModelOutput(output),
  });
}

/** A tools record kept up to date with its source's definitions; entries are added or replaced, never removed. */
class ToolRecord {
  readonly tools: ToolSet;
  private readonly extraNames: string[];
  private readonly built = new Map<string, { definition: ToolDefinition; json: string }>();

  constructor(
    private readonly target: AdapterTarget,
    private readonly options: AiSdkToolsOptions,
    extraTools: ToolSet = {},
  ) {
    this.tools = { ...extraTools };
    this.extraNames = Object.keys(extraTools);
  }

  /** Adds (or rebuilds, when its definition changed) every current definition's tool; returns the names to offer now. */
  sync(): string[] {
    const names = [...this.extraNames];
    for (const definition of this.target.definitions()) {
      if (this.extraNames.includes(definition.name)) continue;
      names.push(definition.name);
      const known = this.built.get(definition.name);
      if (known?.definition === definition) continue;
      const json = JSON.stringify(definition);
      if (known?.json === json) {
        known.definition = definition;
        continue;
      }
      this.tools[definition.name] = sdkTool(this.target, definition, this.options);
      this.built.set(definition.name, { definition, json });
    }
    return names;
  }
}

/**
 * The source's current definitions as an AI SDK `ToolSet`: key = the host's tool name,
 * `inputSchema` = `jsonSchema` of a copy of its parameters, `execute` routed through the
 * host with the SDK's abort signal, and `toModelOutput` mapping the `ToolOutput` it
 * returns to text, image parts or `error-text`. A snapshot: for a `ToolSession` whose
 * selection grows during a run (or a catalog that changes), use `aiSdkSession`.
 *
 * `source`: a `ToolHost`, a `ToolSession`, or an initialised provider (the fleet's
 * `McpServerManager`, an `McpToolProvider`).
 */
export function aiSdkTools(source: ToolSource, options: AiSdkToolsOptions = {}): ToolSet {
  const record = new ToolRecord(adapterTarget(source), options);
  record.sync();
  return record.tools;
}

/**
 * `tools` and a `prepareStep` that keep each step's offer equal to the source's
 * current definitions. With a `ToolSession` (`host.session()`), a run can start with
 * the discovery helpers only: once the model calls `tools_select` (or `tools_search`),
 * the next step offers the new tools, in the same run. With a host or provider, each
 * step offers its catalog as it is then (servers that came or went included).
 */
export function aiSdkSession(source: ToolSource, options: AiSdkSessionOptions = {}): AiSdkSession {
  const { extraTools, ...toolOptions } = options;
  const record = new ToolRecord(adapterTarget(source), toolOptions, extraTools);
  record.sync();
  return { tools: record.tools, prepareStep: () => ({ activeTools: record.sync() }) };
}
