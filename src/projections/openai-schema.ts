/**
 * The function schema both OpenAI APIs (Responses and Chat Completions) take: an object
 * root, lowered for strict mode when strict mode is asked for and can express it, sent
 * non-strict (with a `not_strict` change saying why) when it cannot.
 */
import type { ToolDefinition } from '../core/tool.js';
import { objectRoot } from './root-object.js';
import { ChangeLog, type SchemaNode } from './schema-tools.js';
import { lowerStrict, NotStrictError } from './strict-schema.js';
import type { SchemaChange } from './types.js';

/** Options of `openaiResponses.tools` and `openaiChat.tools`. */
export interface OpenAIToolsOptions {
  /**
   * Strict mode (Structured Outputs) for function calls. `true` lowers every schema to
   * what strict mode accepts; `false` sends every tool non-strict. Default: each
   * definition's own `strict` flag (the discovery helpers are written strict; MCP tools
   * are not), which keeps server schemas exactly as written.
   */
  strict?: boolean;
}

/** One definition's OpenAI function: name, description, schema and whether it is strict. */
export interface OpenAIFunctionParts {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** A definition as an OpenAI function, and the changes its schema took. */
export function openaiFunction(definition: ToolDefinition, options: OpenAIToolsOptions): { fn: OpenAIFunctionParts; changes: SchemaChange[] } {
  const log = new ChangeLog(definition.name);
  const root = objectRoot(definition.parameters, log);
  const fn = (parameters: SchemaNode, strict: boolean): OpenAIFunctionParts => ({ name: definition.name, description: definition.description, parameters, strict });
  if (!(options.strict ?? definition.strict === true)) return { fn: fn(root, false), changes: log.changes };
  const strictLog = new ChangeLog(definition.name);
  try {
    const lowered = lowerStrict(root, strictLog);
    return { fn: fn(lowered, true), changes: [...log.changes, ...strictLog.changes] };
  } catch (error) {
    if (!(error instanceof NotStrictError)) throw error;
    log.add('not_strict', error.path, `sent without strict mode: ${error.reason}.`);
    return { fn: fn(root, false), changes: log.changes };
  }
}
