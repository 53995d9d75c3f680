/**
 * Model API stand-in: a local HTTP server that answers like the OpenAI Responses, OpenAI
 * Chat Completions, Anthropic Messages and Gemini generateContent endpoints, so the official
 * SDK clients can run real requests without network or API key. It owns the wire shapes of
 * those four answers (as far as the SDKs need to parse them) and the record of every request
 * body, so tests can assert on what an SDK really sent. Streaming is not offered.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ModelApi = 'openai-responses' | 'openai-chat' | 'anthropic' | 'gemini';

export interface StandInToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One scripted model turn, neutral across APIs. */
export type StandInReply = { toolCalls: StandInToolCall[] } | { text: string };

export interface RecordedRequest {
  api: ModelApi;
  /** URL path without the query string (a query may carry `key=`). */
  path: string;
  /** From the body's `model` field (OpenAI, Anthropic) or from the path (Gemini). */
  model: string | undefined;
  /** The parsed JSON body; every route takes an object, so anything else was refused. */
  body: Record<string, unknown>;
  /** Lower-case names; credential headers hold "[redacted]". */
  headers: Record<string, string>;
}

export interface ModelStandInOptions {
  /**
   * Called for every answered request; returns what the model "says". Default: the first
   * request of each API asks for `defaultToolCalls` (if given), every later one answers
   * `{ text: 'done' }`.
   */
  reply?: (request: RecordedRequest, index: number) => StandInReply;
  defaultToolCalls?: StandInToolCall[];
}

export interface ModelStandIn {
  /** Base URL, e.g. http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  /** What to pass to each SDK client: openai `baseURL`, anthropic `baseURL`, genai `httpOptions.baseUrl`. */
  baseUrls: { openai: string; anthropic: string; gemini: string };
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** The Anthropic SDK sends its key as a bearer token, OpenAI too, genai as x-goog-api-key. */
const SECRET_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key']);

/**
 * The genai SDK puts its API version in the path: `v1` by default in 3.x, `v1beta` or
 * `v1alpha` when asked. Any of them is accepted.
 */
const GEMINI_PATH = /^\/(v1(?:beta|alpha)?)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A rough token count, so code that sums usage sees plausible non-zero numbers. */
const tokens = (value: unknown): number => Math.max(1, Math.ceil(JSON.stringify(value).length / 4));

function route(method: string, path: string): { api: ModelApi; model?: string; streamPath: boolean } | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/v1/responses') return { api: 'openai-responses', streamPath: false };
  if (path === '/v1/chat/completions') return { api: 'openai-chat', streamPath: false };
  if (path === '/v1/messages') return { api: 'anthropic', streamPath: false };
  const gemini = GEMINI_PATH.exec(path);
  if (gemini) return { api: 'gemini', model: decodeURIComponent(gemini[2]!), streamPath: gemini[3] === 'streamGenerateContent' };
  return undefined;
}

async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'request body must be a JSON object');
  return body as Record<string, unknown>;
}

function recordedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers[name] = SECRET_HEADERS.has(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** Builds one API's answer; `next` hands out ids unique within this server. */
function answer(api: ModelApi, request: RecordedRequest, reply: StandInReply, next: () => number): Record<string, unknown> {
  const calls = 'toolCalls' in reply ? reply.toolCalls : [];
  const text = 'text' in reply ? reply.text : undefined;
  const inputTokens = tokens(request.body);
  const outputTokens = tokens(reply);
  const created = Math.floor(Date.now() / 1000);
  switch (api) {
    case 'openai-responses': {
      const output: Record<string, unknown>[] = calls.map((call) => {
        const n = next();
        return { type: 'function_call', id: `fc_${n}`, call_id: `call_${n}`, name: call.name, arguments: JSON.stringify(call.arguments), status: 'completed' };
      });
      if (text !== undefined) {
        output.push({ type: 'message', id: `msg_${next()}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
      }
      // The SDK derives `output_text` from `output` itself; echoing request settings mirrors the real API.
      return {
        id: `resp_${next()}`,
        object: 'response',
        created_at: created,
        model: request.model,
        status: 'completed',
        error: null,
        incomplete_details: null,
        instructions: request.body.instructions ?? null,
        output,
        parallel_tool_calls: request.body.parallel_tool_calls ?? true,
        previous_response_id: request.body.previous_response_id ?? null,
        tool_choice: request.body.tool_choice ?? 'auto',
        tools: request.body.tools ?? [],
        metadata: request.body.metadata ?? {},
        usage: {
          input_tokens: inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: inputTokens + outputTokens,
        },
      };
    }
    case 'openai-chat': {
      const toolCalls = calls.map((call) => ({ id: `call_${next()}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
      const message = { role: 'assistant', content: text ?? null, refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
      return {
        id: `chatcmpl_${next()}`,
        object: 'chat.completion',
        created,
        model: request.model,
        choices: [{ index: 0, finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop', logprobs: null, message }],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      };
    }
    case 'anthropic': {
      const content: Record<string, unknown>[] = calls.map((call) => ({ type: 'tool_use', id: `toolu_${next()}`, name: call.name, input: call.arguments }));
      if (text !== undefined) content.push({ type: 'text', text });
      return {
        id: `msg_${next()}`,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content,
        stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      };
    }
    case 'gemini': {
      const parts: Record<string, unknown>[] = calls.map((call) => ({ functionCall: { id: `call_${next()}`, name: call.name, args: call.arguments } }));
      if (text !== undefined) parts.push({ text });
      return {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens },
        modelVersion: request.model,
        responseId: `resp_${next()}`,
      };
    }
  }
}

/** One error shape that each SDK surfaces: OpenAI and Gemini read `error.message`, Anthropic `error.type` too. */
function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const errorBody = (status: number, message: string) => ({
  type: 'error',
  error: { type: status === 404 ? 'not_found_error' : 'invalid_request_error', code: status, message },
});

export async function startModelStandIn(options: ModelStandInOptions = {}): Promise<ModelStandIn> {
  const requests: RecordedRequest[] = [];
  let counter = 0;
  const next = (): number => ++counter;
  const defaultReply = (_request: RecordedRequest, index: number): StandInReply =>
    index === 0 && options.defaultToolCalls && options.defaultToolCalls.length > 0 ? { toolCalls: options.defaultToolCalls } : { text: 'done' };
  const reply = options.reply ?? defaultReply;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://stand-in').pathname;
    const target = route(req.method ?? 'GET', path);
    if (!target) throw new HttpError(404, `model stand-in has no route for ${req.method} ${path}`);
    const body = await readJsonObject(req);
    if (target.streamPath || body.stream === true) throw new HttpError(400, 'model stand-in does not stream; send the request without streaming');
    const model = target.model ?? (typeof body.model === 'string' ? body.model : undefined);
    const request: RecordedRequest = { api: target.api, path, model, body, headers: recordedHeaders(req) };
    const index = requests.filter((earlier) => earlier.api === target.api).length;
    requests.push(request);
    sendJson(res, 200, answer(target.api, request, reply(request, index), next));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A failing `reply` script is a 500, so the SDK error names the stand-in rather than hanging.
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendJson(res, status, errorBody(status, message));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrls: { openai: `${url}/v1`, anthropic: url, gemini: url },
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // SDK clients keep connections alive; without this, close waits for them to time out.
        server.closeAllConnections();
      }),
  };
}
