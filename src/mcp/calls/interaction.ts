/**
 * Elicitation: a server asking the person for input, either as a server-to-client
 * `elicitation/create` request (2025 revisions) or as an `input_required` round of a
 * `2026-07-28` call (SEP-2322). Both go through one application handler, and only for
 * servers that opt in: the application owns the UI, consent and validation. A handler
 * that throws or runs out of time declines, and the session goes on.
 */
import { isJsonObject } from '../../core/json.js';
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { errorMessage } from '../errors.js';
import type { McpLogger } from '../logger.js';

/** A form elicitation: fields described by a flat JSON Schema object. */
export interface McpFormElicitation {
  mode: 'form';
  message: string;
  requestedSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
}

/** A URL elicitation: the person should open a URL (sign in, pay, consent) in a browser. */
export interface McpUrlElicitation {
  mode: 'url';
  message: string;
  url: string;
  /** Present on the 2025-11-25 revision. */
  elicitationId?: string;
}

export type McpElicitationRequest = McpFormElicitation | McpUrlElicitation;

/** The person's answer. `content` holds the form values for `accept` of a form. */
export interface McpElicitationResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

export interface McpElicitationContext {
  serverId: string;
  /** Aborts when the call is cancelled, the elicitation times out, or the session closes. */
  signal: AbortSignal;
}

/** The application's elicitation handler. */
export interface McpElicitationHandler {
  /** The standard modes the application can present. Default `['form']`. */
  modes?: ('form' | 'url')[];
  elicit(request: McpElicitationRequest, context: McpElicitationContext): Promise<McpElicitationResult>;
}

/** The elicitation capability to advertise for these modes (form defaults are applied, SEP-1034). */
export function elicitationCapability(handler: McpElicitationHandler): NonNullable<ClientCapabilities['elicitation']> {
  const modes = handler.modes ?? ['form'];
  return {
    ...(modes.includes('form') ? { form: { applyDefaults: true } } : {}),
    ...(modes.includes('url') ? { url: {} } : {}),
  };
}

/** The request, reduced to the typed fields the handler sees (server-sent extra fields are dropped). */
function typedRequest(params: Record<string, unknown>): McpElicitationRequest {
  const message = typeof params.message === 'string' ? params.message : '';
  if (params.mode === 'url') {
    return {
      mode: 'url',
      message,
      url: String(params.url),
      ...(typeof params.elicitationId === 'string' ? { elicitationId: params.elicitationId } : {}),
    };
  }
  return { mode: 'form', message, requestedSchema: params.requestedSchema as McpFormElicitation['requestedSchema'] };
}

/** One value checked against a property of a form's schema (string, number, integer, boolean, enum). */
function valueProblem(name: string, value: unknown, property: unknown): string | undefined {
  const { type, enum: choices, items } = (property ?? {}) as { type?: unknown; enum?: unknown; items?: unknown };
  if (type === 'array') {
    // A multi-select (SEP-1330): an array of strings, each among the items' choices when they are given.
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) return `"${name}" is not a list of strings`;
    const allowed = itemChoices(items);
    return allowed === undefined || value.every((item) => allowed.includes(item)) ? undefined : `"${name}" holds a value that is not one of its choices`;
  }
  if (Array.isArray(choices) && !choices.includes(value)) return `"${name}" is not one of its choices`;
  const fits =
    type === 'string' ? typeof value === 'string'
    : type === 'number' ? typeof value === 'number' && Number.isFinite(value)
    : type === 'integer' ? Number.isInteger(value)
    : type === 'boolean' ? typeof value === 'boolean'
    : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
  return fits ? undefined : `"${name}" is not a ${typeof type === 'string' ? type : 'primitive value'}`;
}

/** The choices of a multi-select's items (`enum`, or `anyOf` of `const`s), or `undefined` when any string goes. */
function itemChoices(items: unknown): unknown[] | undefined {
  const { enum: choices, anyOf } = (items ?? {}) as { enum?: unknown; anyOf?: unknown };
  if (Array.isArray(choices)) return choices as unknown[];
  if (Array.isArray(anyOf)) return anyOf.map((option) => (option as { const?: unknown } | null)?.const).filter((value) => value !== undefined);
  return undefined;
}

/**
 * What is wrong with accepted form content, or `undefined`: it must be an object of the
 * schema's properties only, each a value of its type (or among its choices). Content the
 * protocol cannot carry would otherwise fail the whole call.
 */
function formContentProblem(content: unknown, schema: McpFormElicitation['requestedSchema'] | undefined): string | undefined {
  if (!isJsonObject(content)) return 'the content is not an object';
  const properties = schema?.properties ?? {};
  for (const [name, value] of Object.entries(content)) {
    if (!Object.hasOwn(properties, name)) return `"${name}" is not a field of the form`;
    const problem = valueProblem(name, value, properties[name]);
    if (problem !== undefined) return problem;
  }
  // Fields left out are the server's to judge (defaults fill some in, SEP-1034).
  return undefined;
}

/**
 * Answers one elicitation through the handler, bounded by `timeoutMs` and `signal`. A
 * failure, a timeout or a malformed answer (accepted form content that does not fit the
 * requested schema included) becomes a decline.
 */
export async function elicit(
  handler: McpElicitationHandler,
  params: Record<string, unknown>,
  options: { serverId: string; timeoutMs: number; signal: AbortSignal | undefined; logger: McpLogger },
): Promise<McpElicitationResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`elicitation timed out after ${options.timeoutMs} ms (timeouts.elicitationMs)`)), options.timeoutMs);
  const onAbort = (): void => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const answer = await Promise.race([
      handler.elicit(typedRequest(params), { serverId: options.serverId, signal: controller.signal }),
      new Promise<never>((_, reject) => {
        controller.signal.addEventListener('abort', () => reject(controller.signal.reason as Error), { once: true });
      }),
    ]);
    if (answer?.action !== 'accept' && answer?.action !== 'decline' && answer?.action !== 'cancel') {
      throw new Error('the handler answered without a valid action');
    }
    if (answer.action === 'accept' && params.mode !== 'url') {
      const problem = formContentProblem(answer.content ?? {}, params.requestedSchema as McpFormElicitation['requestedSchema'] | undefined);
      if (problem !== undefined) throw new Error(`the handler's answer does not fit the form: ${problem}`);
    }
    return answer.action === 'accept' && answer.content !== undefined ? { action: 'accept', content: answer.content } : { action: answer.action };
  } catch (error) {
    options.logger.warn({ serverId: options.serverId, error: errorMessage(error) }, 'MCP elicitation failed; declined');
    return { action: 'decline' };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/** Which embedded input requests of an `input_required` round this host will not answer. */
export function unsupportedInputs(
  inputRequests: Record<string, unknown>,
  elicitation: McpElicitationHandler | undefined,
): { key: string; method: string }[] {
  const modes = elicitation?.modes ?? ['form'];
  const unsupported: { key: string; method: string }[] = [];
  for (const [key, value] of Object.entries(inputRequests)) {
    const request = value as { method?: unknown; params?: { mode?: unknown } } | null;
    const method = typeof request?.method === 'string' ? request.method : 'unknown';
    const mode = request?.params?.mode === 'url' ? 'url' : 'form';
    if (method !== 'elicitation/create' || elicitation === undefined || !modes.includes(mode)) {
      unsupported.push({ key, method: method === 'elicitation/create' ? `elicitation/create (${mode})` : method });
    }
  }
  return unsupported;
}

/** The tool-level error text for a round this host will not answer (checklist item 127). */
export function unsupportedInputMessage(serverId: string, tool: string, unsupported: { key: string; method: string }[]): string {
  const requests = unsupported.map(({ key, method }) => `${key}: ${method}`).join(', ');
  return (
    `MCP tool "${tool}" on server "${serverId}" requires client-side input (requests: ${requests}), which this host does not ` +
    'provide for this call: sampling and roots are not supported, and elicitation needs both an application handler and ' +
    '`elicitation: true` on the server. Call the tool with complete arguments, or use a different tool.'
  );
}
