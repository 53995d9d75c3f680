/**
 * The shape check of a `tools/list` page's tools, done here rather than by the SDK (the
 * session's tap moves them aside; see `RAW_TOOLS_KEY` for why). What the host relies on
 * is checked field by field, and a broken tool is named in the error.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { RAW_TOOLS_KEY } from '../session/tap.js';
import { isJsonObject } from '../../core/json.js';

/** One page of `tools/list`, shape-checked. */
export interface ToolListPage {
  tools: Tool[];
  nextCursor: string | undefined;
}

/** What is wrong with a page: the message, and the tool it concerns when there is one. */
export interface ToolListProblem {
  message: string;
  tool?: string;
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const TASK_SUPPORT = new Set(['required', 'optional', 'forbidden']);


const optional = (value: unknown, check: (value: unknown) => boolean): boolean => value === undefined || check(value);
const isString = (value: unknown): boolean => typeof value === 'string';

/** An object schema as MCP requires for input and output schemas: `type: "object"`, with well-formed `properties` and `required`. */
function isObjectSchema(value: unknown): boolean {
  return (
    isJsonObject(value) &&
    value.type === 'object' &&
    optional(value.properties, isJsonObject) &&
    optional(value.required, (required) => Array.isArray(required) && required.every(isString))
  );
}

/** The first field of `tool` that breaks the MCP `Tool` shape, or `undefined`. */
function badField(tool: Record<string, unknown>): string | undefined {
  if (!optional(tool.title, isString)) return 'title';
  if (!optional(tool.description, isString)) return 'description';
  if (!isObjectSchema(tool.inputSchema)) return 'inputSchema';
  if (!optional(tool.outputSchema, isObjectSchema)) return 'outputSchema';
  const annotations = tool.annotations;
  if (annotations !== undefined) {
    if (!isJsonObject(annotations) || !optional(annotations.title, isString)) return 'annotations';
    for (const hint of HINTS) if (!optional(annotations[hint], (value) => typeof value === 'boolean')) return `annotations.${hint}`;
  }
  if (!optional(tool.execution, (execution) => isJsonObject(execution) && optional(execution.taskSupport, (value) => TASK_SUPPORT.has(value as string)))) {
    return 'execution';
  }
  if (!optional(tool._meta, isJsonObject)) return '_meta';
  if (!optional(tool.icons, Array.isArray)) return 'icons';
  return undefined;
}

/** Checks one page (as the SDK returned it); returns it typed, or the first problem. */
export function checkToolListPage(result: Record<string, unknown>): ToolListPage | ToolListProblem {
  const tools = RAW_TOOLS_KEY in result ? result[RAW_TOOLS_KEY] : result.tools;
  const nextCursor = result.nextCursor;
  if (!Array.isArray(tools)) return { message: 'the result has no "tools" array' };
  if (nextCursor !== undefined && nextCursor !== null && typeof nextCursor !== 'string') {
    return { message: '"nextCursor" is not a string' };
  }
  for (let i = 0; i < tools.length; i++) {
    const tool: unknown = tools[i];
    if (!isJsonObject(tool) || typeof tool.name !== 'string') return { message: `tool #${i + 1} has no string "name"` };
    const field = badField(tool);
    if (field !== undefined) return { message: `tool "${tool.name}" has an invalid "${field}"`, tool: tool.name };
  }
  return { tools: tools as Tool[], nextCursor: nextCursor ?? undefined };
}
