/**
 * The 2026-07-28 leg stays on the SDK's web-standard handler; this is the thin bridge to it
 * from Node's objects. The request it builds carries no body (the handler is given the one
 * the listener already parsed, so nothing is serialized again to be read back), and its
 * signal aborts when the client goes away, which ends a `subscriptions/listen` stream or a
 * call in flight as the node adapter's did.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo, McpHttpHandler } from '@modelcontextprotocol/server';

export async function serveThroughWebHandler(
  handler: Pick<McpHttpHandler, 'fetch'>,
  request: IncomingMessage,
  response: ServerResponse,
  parsedBody: unknown,
  authInfo: AuthInfo | undefined,
): Promise<void> {
  const abort = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) abort.abort();
  });
  const webRequest = new Request(`http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`, {
    method: request.method ?? 'GET',
    headers: webHeaders(request),
    signal: abort.signal,
  });
  const answer = await handler.fetch(webRequest, { ...(parsedBody === undefined ? {} : { parsedBody }), ...(authInfo === undefined ? {} : { authInfo }) });
  await writeWebResponse(answer, response, abort.signal);
}

function webHeaders(request: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = request.rawHeaders;
  // The body is handed over parsed, so what described the bytes on the wire no longer applies.
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index]!;
    if (name.startsWith(':') || SKIPPED.has(name.toLowerCase())) continue;
    headers.append(name, raw[index + 1]!);
  }
  return headers;
}

const SKIPPED = new Set(['content-length', 'transfer-encoding', 'content-encoding']);

/** Writes a web `Response` to Node: a JSON answer in one write, a stream chunk by chunk with backpressure. */
async function writeWebResponse(answer: Response, response: ServerResponse, closed: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of answer.headers) headers[name] = value;
  if (answer.body === null) {
    response.writeHead(answer.status, { ...headers, 'content-length': '0' });
    response.end();
    return;
  }
  if (!(headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const bytes = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, { ...headers, 'content-length': String(bytes.byteLength) });
    response.end(bytes);
    return;
  }
  response.writeHead(answer.status, headers);
  response.flushHeaders();
  const gone = new Promise<void>((resolve) => closed.addEventListener('abort', () => resolve(), { once: true }));
  try {
    for await (const chunk of answer.body) {
      if (closed.aborted) break;
      if (!response.write(chunk)) await Promise.race([new Promise((resolve) => response.once('drain', resolve)), gone]);
    }
  } catch {
    // The stream failed or was cancelled; the answer ends with what went out.
  }
  if (!response.writableEnded) response.end();
}
