/**
 * A one-shot loopback listener for the authorization redirect, for the variant where
 * the browser runs elsewhere and reaches this machine through an SSH tunnel
 * (`ssh -N -L <port>:127.0.0.1:<port> user@host`): it waits on `127.0.0.1:<port>` for the
 * one redirect, answers the browser with a short page, and resolves with the full URL to
 * pass to `completeAuthorization`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OAuthCallbackListener {
  /** The redirect URI to configure (`http://127.0.0.1:<port><path>`). */
  redirectUri: string;
  /** Resolves with the full redirect URL once the browser arrives. */
  redirect: Promise<string>;
  /** Stops listening. */
  close(): Promise<void>;
}

export interface OAuthCallbackListenerOptions {
  /** The port; `0` picks a free one (then register the returned `redirectUri`). Default 0. */
  port?: number;
  /** The path of the redirect URI. Default `/callback`. */
  path?: string;
  /** Give up after this long. Default 300,000 ms. */
  timeoutMs?: number;
}

const PAGE = '<!doctype html><title>Authorization received</title><p>Authorization received. You can close this tab.</p>';

export async function startOAuthCallbackListener(options: OAuthCallbackListenerOptions = {}): Promise<OAuthCallbackListener> {
  const path = options.path ?? '/callback';
  let settle!: (url: string) => void;
  let fail!: (error: Error) => void;
  const redirect = new Promise<string>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // Callers may await `redirect` late; never leave a rejection unobserved.
  redirect.catch(() => {});
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    // Only an authorization response (a code, or an error) ends the wait: any local page or
    // process could reach this port, and a stray request must not end the flow.
    if (!url.searchParams.has('code') && !url.searchParams.has('error')) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('Not an authorization response.');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    settle(url.href);
    void close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const timer = setTimeout(() => {
    fail(new Error(`No authorization redirect arrived on 127.0.0.1:${port} in time.`));
    void close();
  }, options.timeoutMs ?? 300_000);
  timer.unref();
  let closed: Promise<void> | undefined;
  function close(): Promise<void> {
    clearTimeout(timer);
    closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  }
  return { redirectUri: `http://127.0.0.1:${port}${path}`, redirect, close };
}
