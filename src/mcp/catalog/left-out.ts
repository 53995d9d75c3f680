/**
 * The tools a catalog leaves out for breaking a per-tool budget. Such a tool costs only
 * itself: the rest of its server is published, and the tool is named, with the budget it
 * broke and how to raise it, in a warning and in the server's status. What makes a
 * listing untrustworthy as a whole (a repeated cursor, a duplicate name, too many pages
 * or tools) still rejects it (see `catalog.ts`). The record is bounded however many tools
 * a server lists: every left-out tool is counted, the first few are named.
 */
import { cutUtf8, utf8Bytes } from '../../core/budget.js';
import type { McpLogger } from '../logger.js';
import type { McpLeftOutTool, McpLeftOutTools, McpToolBudget } from '../config/policy.js';

/** Most left-out tools a status names; the others are only counted. */
export const LEFT_OUT_NAMED = 16;

/** Longest tool name a record keeps: a name is for a person to read (and to `exclude`), and a server chooses its length. */
const NAME_BYTES = 256;

function boundedName(name: string): string {
  return utf8Bytes(name) <= NAME_BYTES ? name : `${cutUtf8(name, NAME_BYTES - 3)}…`;
}

/** The left-out tools of one listing, in listing order, gathered while its tools are checked. */
export class LeftOutTools {
  private count = 0;
  private readonly named: McpLeftOutTool[] = [];

  /**
   * Records a tool left out. `measure` gives its size, and is called only for a tool
   * that will be named: measuring a schema exactly means serialising it.
   */
  add(name: string, budget: McpToolBudget, field: McpLeftOutTool['field'], limit: number, measure?: () => number): void {
    this.count++;
    if (this.named.length >= LEFT_OUT_NAMED) return;
    const bytes = measure?.();
    this.named.push({ name: boundedName(name), budget, field, ...(bytes === undefined ? {} : { bytes }), limit });
  }

  /** The record as a status shows it; `undefined` when every tool fitted. */
  result(): McpLeftOutTools | undefined {
    return this.count === 0 ? undefined : { count: this.count, tools: this.named };
  }
}

const FIELD_WORDS: Record<McpLeftOutTool['field'], string> = {
  inputSchema: 'input schema',
  outputSchema: 'output schema',
  description: 'description',
  title: 'title',
};

const figure = (n: number): string => n.toLocaleString('en-US');

/** Why a tool was left out, briefly: `limits.descriptionBytes 13,201 > 8,192`, or `limits.schemaDepth > 128` (levels). */
export function leftOutReason(tool: McpLeftOutTool): string {
  return tool.bytes === undefined ? `limits.${tool.budget} > ${figure(tool.limit)}` : `limits.${tool.budget} ${figure(tool.bytes)} > ${figure(tool.limit)}`;
}

/** The warning for one left-out tool: the server, the tool, what broke which budget, and the setting that raises it. */
export function leftOutMessage(serverId: string, tool: McpLeftOutTool): string {
  const what = FIELD_WORDS[tool.field];
  const broke =
    tool.bytes === undefined
      ? `its ${what} nests deeper than ${figure(tool.limit)} levels (limits.${tool.budget})`
      : `its ${what} takes ${figure(tool.bytes)} bytes, over ${figure(tool.limit)} (limits.${tool.budget})`;
  return `MCP server "${serverId}": tool "${tool.name}" is left out of the catalog: ${broke}; raise limits.${tool.budget} in the server's configuration to publish it.`;
}

const sameTool = (a: McpLeftOutTool, b: McpLeftOutTool): boolean => a.name === b.name && a.budget === b.budget && a.field === b.field;

/**
 * Warns about what a publication newly leaves out, compared with the one before: a tool
 * left out for the same reason at every refresh is told once, not at every listing, and
 * the warnings of one publication are bounded like the record (one line for the unnamed).
 */
export function warnLeftOut(logger: McpLogger, serverId: string, before: McpLeftOutTools | undefined, after: McpLeftOutTools | undefined): void {
  if (after === undefined) return;
  for (const tool of after.tools) {
    if (before?.tools.some((known) => sameTool(known, tool))) continue;
    logger.warn(
      { serverId, tool: tool.name, budget: tool.budget, field: tool.field, ...(tool.bytes === undefined ? {} : { bytes: tool.bytes }), limit: tool.limit },
      leftOutMessage(serverId, tool),
    );
  }
  const unnamed = after.count - after.tools.length;
  if (unnamed > 0 && after.count !== before?.count) {
    logger.warn(
      { serverId, leftOut: after.count },
      `MCP server "${serverId}": ${figure(unnamed)} more tools are left out of the catalog for breaking per-tool budgets (${figure(after.count)} in all); serverStatuses() names the first ${LEFT_OUT_NAMED}.`,
    );
  }
}
