/**
 * Prompts and argument completion, per server: listing and getting prompts, and
 * completing prompt or resource-template arguments. A server without the capability
 * has no prompts and no completions; a named prompt the server refuses is an error that
 * names it.
 */
import type { CompleteRequest, CompleteResult, GetPromptResult, Prompt } from '@modelcontextprotocol/client';
import { type McpRelayOptions, relayRequestOptions, relayParams } from '../calls/relay.js';
import type { ServerRegistration } from '../registration.js';
import { isMethodNotFound, listAll, type McpRequestOptions, onSession } from './server-operations.js';

export async function listPrompts(registration: ServerRegistration, options: McpRequestOptions): Promise<Prompt[]> {
  const { timeouts } = registration.config;
  return onSession(registration, 'prompts/list', timeouts.setupMs + timeouts.listMs, options, async (session, signal) =>
    session.capabilities.prompts === undefined ? [] : listAll<Prompt>(registration, session, 'prompts/list', 'prompts', signal),
  );
}

export async function getPrompt(
  registration: ServerRegistration,
  name: string,
  args: Record<string, string>,
  options: McpRequestOptions & McpRelayOptions,
): Promise<GetPromptResult> {
  const { timeouts } = registration.config;
  return onSession(registration, `prompts/get ${JSON.stringify(name)}`, timeouts.callMs, options, (session, signal) =>
    session.client.getPrompt({ name, arguments: args, ...relayParams(options) }, { signal, timeout: timeouts.requestMs, ...relayRequestOptions(options) }),
  );
}

/** What to complete: an argument of a prompt, or of a resource template. */
export type McpCompletionReference = CompleteRequest['params']['ref'];

/** Suggested values for an argument; `values` is empty when the server offers none. */
export type McpCompletion = CompleteResult['completion'];

export async function complete(
  registration: ServerRegistration,
  ref: McpCompletionReference,
  argument: { name: string; value: string },
  context: Record<string, string> | undefined,
  options: McpRequestOptions,
): Promise<McpCompletion> {
  const { timeouts } = registration.config;
  return onSession(registration, 'completion/complete', timeouts.callMs, options, async (session, signal) => {
    if (session.capabilities.completions === undefined) return { values: [] };
    try {
      const result = await session.client.complete(
        { ref, argument, ...(context === undefined ? {} : { context: { arguments: context } }) },
        { signal, timeout: timeouts.requestMs },
      );
      return result.completion;
    } catch (error) {
      if (isMethodNotFound(error)) return { values: [] };
      throw error;
    }
  });
}
