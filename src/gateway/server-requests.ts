/**
 * A 2025 server's requests to its client (elicitation, sampling, roots), pushed during a
 * call, passed to the client that made the call, in that client's era:
 *
 * - a 2025 client is asked the same request, related to its call (on that call's stream);
 * - a 2026-07-28 client cannot be asked anything: it answers `input_required` rounds of a
 *   request it sends again. So the gateway holds the server's call open, answers the
 *   client's request with a round carrying the pushed request, and, when the client sends
 *   the call again with its answer and the round's `requestState`, answers the server
 *   and waits for the call's next request or its result.
 *
 * A client that lacks what a request needs is not asked: the server reads a decline (a
 * sampling request an error), and a failed result tells the model what was needed.
 */
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/client';
import { ProtocolError, ProtocolErrorCode, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import type { McpServerRequest, McpServerRequestHandler } from '../mcp/calls/relay.js';
import { declinedServerRequest } from '../mcp/session/server-requests.js';

/** Every held call's `requestState` starts so; any other state is the server's own, relayed to it untouched. */
const HELD_STATE_PREFIX = 'mcp-fleet.held.';

/** What the caller's declared capabilities lack for a request, or `undefined` when it can answer it. */
export function missingCapability(capabilities: Record<string, unknown>, request: McpServerRequest): string | undefined {
  if (request.method === 'sampling/createMessage') return capabilities.sampling === undefined ? 'sampling (sampling/createMessage)' : undefined;
  if (request.method === 'roots/list') return capabilities.roots === undefined ? 'roots (roots/list)' : undefined;
  const elicitation = capabilities.elicitation as Record<string, unknown> | undefined;
  if (elicitation === undefined) return 'elicitation (elicitation/create)';
  // An empty elicitation capability means form mode (2025-11-25); URL mode is declared by name.
  const url = request.params.mode === 'url';
  if (url && elicitation.url === undefined) return 'URL elicitation (elicitation/create, mode "url")';
  if (!url && elicitation.form === undefined && Object.keys(elicitation).length > 0) return 'form elicitation (elicitation/create, mode "form")';
  return undefined;
}

/** Records what a call's caller could not answer, and says so on a failed result. */
export class Unanswered {
  private readonly needed = new Set<string>();

  /** A decline of `request` because the caller lacks `missing`. */
  decline(request: McpServerRequest, missing: string): Promise<Record<string, unknown>> {
    this.needed.add(missing);
    return Promise.resolve().then(() => declinedServerRequest(request.method, `the client that made the call does not support ${missing}`));
  }

  /** The result, with a line naming what the tool asked for in vain when it failed. */
  told(result: CallToolResult): CallToolResult {
    if (this.needed.size === 0 || result.isError !== true) return result;
    const text = `The tool asked the client for ${[...this.needed].join(' and ')}, which the client that made the call does not support.`;
    return { ...result, content: [...result.content, { type: 'text', text }] };
  }
}

/** The handler that asks a 2025 client, on its call's own stream, what the server asked. */
export function askLegacyCaller(ctx: ServerContext, capabilities: Record<string, unknown>, unanswered: Unanswered, answerMs: number): McpServerRequestHandler {
  return (request, signal) => {
    const missing = missingCapability(capabilities, request);
    if (missing !== undefined) return unanswered.decline(request, missing);
    const send = ctx.mcpReq.send as (request: { method: string; params: Record<string, unknown> }, options: { signal: AbortSignal; timeout: number }) => Promise<Record<string, unknown>>;
    return send({ method: request.method, params: request.params }, { signal, timeout: answerMs });
  };
}

/** One pushed request waiting for the client's answer. */
interface Asked {
  request: McpServerRequest;
  answer: (result: Record<string, unknown>) => void;
  fail: (error: unknown) => void;
}

type Outcome = { result: CallToolResult } | { error: unknown };

/** A server's call kept open across a 2026-07-28 client's rounds. */
class HeldCall {
  readonly stop = new AbortController();
  readonly unanswered = new Unanswered();
  outcome!: Promise<Outcome>;
  /** Pushed and not yet sent to the client in a round. */
  queued: Asked[] = [];
  /** Sent to the client in the last round, by key. */
  asked = new Map<string, Asked>();
  /** Wakes the request waiting for the call's next step. */
  wake: (() => void) | undefined;
  timer: NodeJS.Timeout | undefined;
  private nextKey = 0;

  constructor(readonly state: string) {}

  key(): string {
    return `r${++this.nextKey}`;
  }
}

export interface HeldCallsOptions {
  /** How long a held call waits for the client to send its answers. */
  holdMs: number;
  /** How many calls may wait at once; a push beyond that is declined. */
  maxHeld: number;
}

/** The calls held for 2026-07-28 clients, by the `requestState` of their pending round. */
export class HeldCalls {
  private readonly held = new Map<string, HeldCall>();

  constructor(private readonly options: HeldCallsOptions) {}

  /** Whether a retried request's `requestState` names a call held here. */
  static owns(state: unknown): state is string {
    return typeof state === 'string' && state.startsWith(HELD_STATE_PREFIX);
  }

  /**
   * Runs a call for a 2026-07-28 client whose declared capabilities are `capabilities`:
   * resolves with its result, or with an `input_required` round when the server asks
   * something first. `run` receives the handler of the server's requests and the signal
   * that ends the call.
   */
  start(
    capabilities: Record<string, unknown>,
    run: (onServerRequest: McpServerRequestHandler, signal: AbortSignal) => Promise<CallToolResult>,
    signal: AbortSignal,
  ): Promise<CallToolResult | InputRequiredResult> {
    const call = new HeldCall(`${HELD_STATE_PREFIX}${randomBytes(18).toString('base64url')}`);
    const onServerRequest: McpServerRequestHandler = (request) => {
      const missing = missingCapability(capabilities, request);
      if (missing !== undefined) return call.unanswered.decline(request, missing);
      if (this.held.size >= this.options.maxHeld) return call.unanswered.decline(request, `an answer now (the gateway holds ${this.options.maxHeld} calls waiting for answers already)`);
      return new Promise<Record<string, unknown>>((answer, fail) => {
        call.queued.push({ request, answer, fail });
        call.wake?.();
      });
    };
    call.outcome = run(onServerRequest, call.stop.signal).then(
      (result) => ({ result: call.unanswered.told(result) }),
      (error: unknown) => ({ error }),
    );
    return this.next(call, signal);
  }

  /**
   * Answers the held call's round with the client's `inputResponses` (a request left
   * unanswered is declined) and resolves with its next step, as `start` does.
   */
  resume(state: string, inputResponses: Record<string, unknown> | undefined, signal: AbortSignal): Promise<CallToolResult | InputRequiredResult> {
    const call = this.held.get(state);
    if (call === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'requestState names no call waiting for an answer: it ended, waited too long, or was answered already. Call the tool again.',
      );
    }
    this.release(call);
    for (const [key, asked] of call.asked) {
      const response = inputResponses?.[key];
      if (response !== undefined && response !== null && typeof response === 'object') asked.answer(response as Record<string, unknown>);
      else {
        try {
          asked.answer(declinedServerRequest(asked.request.method, 'the client sent no answer for it'));
        } catch (error) {
          asked.fail(error);
        }
      }
    }
    call.asked.clear();
    return this.next(call, signal);
  }

  /** Cancels every held call (the gateway is stopping). */
  close(): void {
    for (const call of this.held.values()) this.abandon(call);
  }

  /** Waits for the call's result or its next request to the client, whichever comes first. */
  private async next(call: HeldCall, signal: AbortSignal): Promise<CallToolResult | InputRequiredResult> {
    const cancel = (): void => this.abandon(call);
    signal.addEventListener('abort', cancel, { once: true });
    try {
      while (call.queued.length === 0) {
        const pushed = new Promise<'pushed'>((resolve) => (call.wake = () => resolve('pushed')));
        const step = await Promise.race([call.outcome, pushed]);
        call.wake = undefined;
        if (step !== 'pushed') {
          if ('error' in step) throw step.error;
          return step.result;
        }
      }
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    const inputRequests: Record<string, McpServerRequest> = {};
    for (const asked of call.queued.splice(0)) {
      const key = call.key();
      call.asked.set(key, asked);
      inputRequests[key] = { method: asked.request.method, params: asked.request.params };
    }
    this.held.set(call.state, call);
    call.timer = setTimeout(() => this.abandon(call), this.options.holdMs);
    call.timer.unref();
    return { resultType: 'input_required', inputRequests, requestState: call.state } as InputRequiredResult;
  }

  private release(call: HeldCall): void {
    this.held.delete(call.state);
    clearTimeout(call.timer);
  }

  /** The client will not answer: the server's call is cancelled (its tool waits on the answer; going on without it could do what nobody asked). */
  private abandon(call: HeldCall): void {
    this.release(call);
    call.stop.abort(new Error('the client did not answer the round in time'));
    const stranded = [...call.asked.values(), ...call.queued.splice(0)];
    call.asked.clear();
    for (const asked of stranded) asked.fail(new ProtocolError(ProtocolErrorCode.InternalError, 'the client that made the call did not answer in time'));
  }
}
