/**
 * What the gateway tests share: the built `mcp-fleet serve --http` on a free port, the
 * clients of both eras that reach it, a 2026-07-28 upstream, and raw HTTP for what the
 * gateway must refuse.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { fixture, tempDir } from './helpers.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const BIN = join(ROOT, 'dist', 'cli', 'main.js');
export const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
export const LEGAL_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

const cleanups: Array<() => Promise<void>> = [];

/** Stops what a test started (gateways, clients, upstreams); each test file runs it after each test. */
export async function cleanUp(): Promise<void> {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
}

/** Runs `cleanup` once the current test is over. */
export function onCleanUp(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

export function stdioServer(file: string, env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [fixture(file)], env };
}

export function writeConfig(path: string, servers: Record<string, unknown>): void {
  writeFileSync(path, JSON.stringify({ mcpServers: servers }, null, 2));
}

export interface Gateway {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

/** Starts `mcp-fleet serve --http --port 0` on `config` and waits for the URL it prints on stderr. */
export async function serve(config: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Gateway> {
  const child = spawn(process.execPath, [BIN, 'serve', '--http', '--port', '0', '--config', config, ...extra], {
    env: { PATH: process.env.PATH!, HOME: tempDir(), XDG_CONFIG_HOME: tempDir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /^(http:\/\/\S+)$/m.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return { url, child, stderr: () => stderr };
}

export async function v1Client(url: string): Promise<V1Client> {
  const client = new V1Client({ name: 'v1-through-gateway', version: '1.0.0' });
  await client.connect(new V1HttpTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

/** The conformance fixture (SDK v2 server packages) on a free port, answering both eras: a 2026-07-28 upstream to the fleet. */
export async function conformanceUpstream(): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'fixtures', 'conformance-server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  cleanups.push(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /(http:\/\/\S+)/.exec(stderr);
      if (match !== null) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the conformance fixture exited with ${code}: ${stderr}`)));
  });
}

export async function modernClient(url: string): Promise<Client> {
  const client = new Client({ name: 'v2-through-gateway', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanups.push(() => client.close());
  return client;
}

export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((part) => part.text ?? '').join('');
}

/**
 * One 2026-07-28 `tools/call` sent by hand (the SDK client drives rounds itself): resolves
 * with the JSON-RPC result, or with `{ error }`.
 */
export async function rawCall(url: string, params: Record<string, unknown>, extraHeaders: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: meta } });
  const headers = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': String(params.name), ...extraHeaders };
  const answer = await raw(url, { headers, body });
  const json = answer.body.trim().startsWith('{') ? answer.body : (/^data: (.*)$/m.exec(answer.body)?.[1] ?? '{}');
  const message = JSON.parse(json) as { result?: Record<string, unknown>; error?: unknown };
  return message.result ?? { error: message.error };
}

/** A raw HTTP request to the gateway, resolving with the status and body. */
export function raw(url: string, options: { method?: string; headers?: Record<string, string | number>; body?: string }): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'POST', headers: options.headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * POSTs `total` bytes in 64 KiB chunks, as fast as the socket takes them, and resolves with
 * the status of the first answer and how much had been sent by then.
 */
export function sendBody(url: string, headers: Record<string, string | number>, total: number): Promise<{ status: number; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const req = httpRequest(url, { method: 'POST', headers: { ...JSON_HEADERS, ...headers } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, sent });
      req.destroy();
    });
    // The gateway closes the connection once it has answered: a write failing after that is expected.
    req.on('error', (error) => (sent < total ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = (): void => {
      while (sent < total && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
    };
    pump();
  });
}

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
