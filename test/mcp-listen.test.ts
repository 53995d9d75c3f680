/**
 * `subscriptions/listen` streams on 2026-07-28 sessions that the server ends: the SDK
 * never listens again, mcp-fleet reopens them while the session is up and treats the gap
 * as a possible change (the catalog is listed again; resource listeners are told).
 * listen-server.mjs is a real process that ends its streams on request.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { McpToolProvider } from '../src/index.js';
import { observationLog, observed, stdioFixture } from './helpers.js';

const REOPENED = { timeout: 10_000, interval: 50 };
const providers: McpToolProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((provider) => provider.close()));
});

async function started(log: string): Promise<McpToolProvider> {
  const provider = new McpToolProvider({
    servers: [{ ...stdioFixture('l', 'listen-server.mjs', { env: { FIXTURE_LOG: log } }), lifecycle: 'discover', resources: true }],
  });
  providers.push(provider);
  await provider.init();
  return provider;
}

function listens(log: string, filter: object): number {
  return observed(log).filter((entry) => entry.method === 'subscriptions/listen' && JSON.stringify(entry.filter) === JSON.stringify(filter)).length;
}

const names = (provider: McpToolProvider): string[] => provider.definitions().map((definition) => definition.name);

/** Waits until a call (which lists a stale catalog again first) finds `name` published. */
async function published(provider: McpToolProvider, name: string): Promise<void> {
  await vi.waitFor(async () => {
    expect((await provider.call('mcp_l_touch', { uri: 'fixture://none' })).isError).toBe(false);
    expect(names(provider)).toContain(name);
  }, REOPENED);
}

describe('listen streams the server ends', () => {
  it('reopens the tools/list_changed stream, and lists again what changed while it was closed', async () => {
    const log = observationLog();
    const provider = await started(log);
    await vi.waitFor(() => expect(listens(log, { toolsListChanged: true })).toBe(1), REOPENED);
    expect(names(provider)).not.toContain('mcp_l_late');

    await provider.callServerTool('l', 'end_streams');
    // Added while no stream is open (and after the catalog was listed again on the way,
    // since the stream's end marked it stale): its notification reaches nobody.
    await provider.callServerTool('l', 'add_tool', { name: 'late' });
    expect(names(provider)).not.toContain('mcp_l_late');
    await published(provider, 'mcp_l_late');

    // The stream is open again: a later change arrives through it.
    await vi.waitFor(() => expect(listens(log, { toolsListChanged: true })).toBe(2), REOPENED);
    await provider.callServerTool('l', 'add_tool', { name: 'later' });
    await published(provider, 'mcp_l_later');
  });

  it('reopens the tools/list_changed stream the server cancels with notifications/cancelled', async () => {
    const log = observationLog();
    const provider = await started(log);
    await vi.waitFor(() => expect(listens(log, { toolsListChanged: true })).toBe(1), REOPENED);
    await provider.callServerTool('l', 'cancel_streams');
    await vi.waitFor(() => expect(listens(log, { toolsListChanged: true })).toBe(2), REOPENED);
    await provider.callServerTool('l', 'add_tool', { name: 'after_cancel' });
    await published(provider, 'mcp_l_after_cancel');
  });

  it('reopens a resource stream: listeners hear of the gap when it opens and when it closes, then of later updates', async () => {
    const log = observationLog();
    const provider = await started(log);
    const uri = 'fixture://note';
    const calls: string[] = [];
    await provider.subscribeResource('l', uri, (updated) => calls.push(updated));
    expect(listens(log, { resourceSubscriptions: [uri] })).toBe(1);

    await provider.callServerTool('l', 'end_streams');
    await vi.waitFor(() => expect(calls).toEqual([uri]), REOPENED);

    await vi.waitFor(() => expect(listens(log, { resourceSubscriptions: [uri] })).toBe(2), REOPENED);
    await vi.waitFor(() => expect(calls).toEqual([uri, uri]), REOPENED);
    await provider.callServerTool('l', 'touch', { uri });
    await vi.waitFor(() => expect(calls).toEqual([uri, uri, uri]), REOPENED);

    // Unsubscribing closes the stream for good: ending streams no longer reaches the listener.
    expect(await provider.unsubscribeResource('l', uri)).toBe(true);
    await provider.callServerTool('l', 'end_streams');
    await provider.callServerTool('l', 'touch', { uri });
    expect(calls).toEqual([uri, uri, uri]);
  });

  it('opens one stream for two listeners that subscribe at the same moment, and closes it when both leave', async () => {
    const log = observationLog();
    const provider = await started(log);
    const uri = 'fixture://note';
    const cancelled = () => observed(log).filter((entry) => entry.method === 'notifications/cancelled').length;
    const heard: string[] = [];
    await Promise.all([
      provider.subscribeResource('l', uri, () => heard.push('first')),
      provider.subscribeResource('l', uri, () => heard.push('second')),
    ]);
    expect(listens(log, { resourceSubscriptions: [uri] })).toBe(1);
    await provider.callServerTool('l', 'touch', { uri });
    await vi.waitFor(() => expect(heard.sort()).toEqual(['first', 'second']));
    const cancelledBefore = cancelled();
    expect(await provider.unsubscribeResource('l', uri)).toBe(true);
    await vi.waitFor(() => expect(cancelled()).toBe(cancelledBefore + 1));
    // No stream is left to reopen: ending the server's streams brings no new listen for the resource.
    await provider.callServerTool('l', 'end_streams');
    await provider.callServerTool('l', 'touch', { uri });
    expect(listens(log, { resourceSubscriptions: [uri] })).toBe(1);
  });
});
