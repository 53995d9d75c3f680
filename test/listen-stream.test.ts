/**
 * The host's own `subscriptions/listen` streams (src/mcp/session/listen.ts), driven through the
 * host's client against listen-server.mjs, a real 2026-07-28 stdio server that can refuse,
 * ignore, cancel or end its streams. Each case checks what the SDK's `listen` does in the
 * same situation: the same request on the wire, the same outcome for the caller.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { HostClient } from '../src/mcp/session/host-client.js';
import type { ListenEnd, ListenOwner, ListenStream } from '../src/mcp/session/listen.js';
import { fixture, observationLog, observed } from './helpers.js';

const clients: HostClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connected(log: string, mode?: 'refuse' | 'silent'): Promise<HostClient> {
  const client = new HostClient({ name: 'listen-test', version: '0.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  clients.push(client);
  const env: Record<string, string> = { FIXTURE_LOG: log, ...(mode ? { FIXTURE_LISTEN: mode } : {}) };
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture('listen-server.mjs')], env, stderr: 'ignore' }));
  return client;
}

/** An owner that records how its streams ended. */
function recorder(): ListenOwner & { ends: ListenEnd[] } {
  const ends: ListenEnd[] = [];
  return { ends, listenEnded: (_stream: ListenStream, end: ListenEnd) => void ends.push(end) };
}

const messages = (log: string, method: string) => observed(log).filter((entry) => entry.method === method);

describe('a listen stream of the host client', () => {
  it('is acknowledged with the filter the server honours, and closing it cancels its request by id', async () => {
    const log = observationLog();
    const client = await connected(log);
    const stream = client.openListen({ toolsListChanged: true }, recorder(), { timeout: 5_000 });
    expect(await stream.opened).toEqual({ toolsListChanged: true });
    expect(stream.isOpen).toBe(true);
    const [listen] = messages(log, 'subscriptions/listen');
    expect(listen).toMatchObject({ id: stream.id, filter: { toolsListChanged: true } });

    await stream.close();
    expect(stream.isOpen).toBe(false);
    await vi.waitFor(() => expect(messages(log, 'notifications/cancelled').map((entry) => entry.requestId)).toEqual([stream.id]));
  });

  it('passes the change notifications it carries to the client handlers', async () => {
    const client = await connected(observationLog());
    const changed = vi.fn();
    client.setNotificationHandler('notifications/tools/list_changed', changed);
    await client.openListen({ toolsListChanged: true }, recorder(), { timeout: 5_000 }).opened;
    await client.callTool({ name: 'add_tool', arguments: { name: 'late' } });
    await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(1));
  });

  it('tells its owner when the server cancels it, when the server ends it gracefully, and when the connection closes', async () => {
    const client = await connected(observationLog());
    const owner = recorder();
    await client.openListen({ toolsListChanged: true }, owner, { timeout: 5_000 }).opened;
    await client.callTool({ name: 'cancel_streams', arguments: {} });
    await vi.waitFor(() => expect(owner.ends).toEqual(['remote']));

    await client.openListen({ toolsListChanged: true }, owner, { timeout: 5_000 }).opened;
    await client.callTool({ name: 'end_streams', arguments: {} });
    await vi.waitFor(() => expect(owner.ends).toEqual(['remote', 'graceful']));

    const last = client.openListen({ toolsListChanged: true }, owner, { timeout: 5_000 });
    await last.opened;
    await client.close();
    expect(owner.ends).toEqual(['remote', 'graceful', 'remote']);
    expect(last.isOpen).toBe(false);
  });

  it('rejects the open with the server error when the server refuses it, and never tells the owner', async () => {
    const client = await connected(observationLog(), 'refuse');
    const owner = recorder();
    const opened = client.openListen({ toolsListChanged: true }, owner, { timeout: 5_000 }).opened;
    await expect(opened).rejects.toSatisfy((error: unknown) => error instanceof ProtocolError && error.message.includes('listening is refused here'));
    expect(owner.ends).toEqual([]);
  });

  it('gives up at the acknowledgement timeout, as a request timeout, and cancels the request', async () => {
    const log = observationLog();
    const client = await connected(log, 'silent');
    const stream = client.openListen({ toolsListChanged: true }, recorder(), { timeout: 200 });
    await expect(stream.opened).rejects.toSatisfy((error: unknown) => error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout);
    await vi.waitFor(() => expect(messages(log, 'notifications/cancelled').map((entry) => entry.requestId)).toEqual([stream.id]));
  });

  it("lets the caller's signal bound the wait for the acknowledgement only", async () => {
    const silent = await connected(observationLog(), 'silent');
    const waiting = new AbortController();
    const abandoned = silent.openListen({ toolsListChanged: true }, recorder(), { timeout: 5_000, signal: waiting.signal });
    waiting.abort(new Error('no longer needed'));
    await expect(abandoned.opened).rejects.toThrow('no longer needed');

    const client = await connected(observationLog());
    const caller = new AbortController();
    const stream = client.openListen({ toolsListChanged: true }, recorder(), { timeout: 5_000, signal: caller.signal });
    await stream.opened;
    caller.abort();
    expect(stream.isOpen).toBe(true);
  });

  it('refuses to open on a 2025-era connection, as the SDK does', async () => {
    const client = new HostClient({ name: 'listen-test', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } });
    clients.push(client);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture('v2-server.mjs')], stderr: 'ignore' }));
    expect(() => client.openListen({ toolsListChanged: true }, recorder(), { timeout: 5_000 })).toThrow(SdkError);
  });
});
