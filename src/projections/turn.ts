/**
 * One turn's tool calls run through a `ToolHost` or `ToolSession`: arguments parsed
 * (JSON that is not JSON becomes an error the model reads), strict mode's `null`s for
 * left-out properties removed, every call run with the caller's signal, and the
 * results returned in the model's order. A failed call is a result, never a lost one;
 * only the caller's abort (or an application error the host throws) rejects, and then
 * only after every call of the turn has settled.
 */
import { toolError } from '../core/host.js';
import type { ToolCallOptions, ToolOutput } from '../core/tool.js';
import { parseArguments, withoutStrictNulls } from './arguments.js';
import type { ModelToolCall, RunToolCallsOptions, ToolCallTarget } from './types.js';

/**
 * One tool call as a model sent it: arguments parsed (arguments that are not JSON are an
 * `invalid_arguments` result the model reads), `null`s strict mode sent for left-out
 * properties removed where `parameters()` (the tool's original schema, read only when
 * needed) refuses them, then the call. Shared with the framework adapters.
 */
export async function callModelTool(
  target: Pick<ToolCallTarget, 'call'>,
  call: Pick<ModelToolCall, 'name' | 'arguments'>,
  parameters: () => Record<string, unknown> | undefined,
  options: ToolCallOptions,
): Promise<ToolOutput> {
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) {
    return toolError('invalid_arguments', `The arguments for tool "${call.name}" are not valid JSON (${parsed.problem}). Send one JSON object.`, { tool: call.name });
  }
  return target.call(call.name, withoutStrictNulls(parameters, parsed.value), { signal: options.signal, timeoutMs: options.timeoutMs });
}

async function runOne(target: ToolCallTarget, call: ModelToolCall, index: number, options: RunToolCallsOptions, schemas: () => Map<string, Record<string, unknown>>): Promise<ToolOutput> {
  const output = await callModelTool(target, call, () => schemas().get(call.name), options);
  try {
    options.onOutput?.(call, output, index);
  } catch {
    // The application's hook failing must not lose a call that already ran on its server.
  }
  return output;
}

/** Runs `calls` and renders each output with `render`, in the order of `calls`. */
export async function runCalls<Item>(
  target: ToolCallTarget,
  calls: ModelToolCall[],
  options: RunToolCallsOptions,
  render: (call: ModelToolCall, output: ToolOutput) => Item,
): Promise<Item[]> {
  options.signal?.throwIfAborted();
  let cached: Map<string, Record<string, unknown>> | undefined;
  // The definitions are read once per turn, and only when some argument holds a null.
  const schemas = (): Map<string, Record<string, unknown>> =>
    (cached ??= new Map((target.definitions?.() ?? []).map((definition) => [definition.name, definition.parameters])));
  const settled: Array<PromiseSettledResult<ToolOutput>> = [];
  if (options.concurrency === 'sequential') {
    for (const [index, call] of calls.entries()) {
      settled.push(await runOne(target, call, index, options, schemas).then((value) => ({ status: 'fulfilled' as const, value }), (reason: unknown) => ({ status: 'rejected' as const, reason })));
      if (options.signal?.aborted) break;
    }
  } else settled.push(...(await Promise.allSettled(calls.map((call, index) => runOne(target, call, index, options, schemas)))));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
  options.signal?.throwIfAborted();
  return settled.map((result, index) => render(calls[index]!, (result as PromiseFulfilledResult<ToolOutput>).value));
}
