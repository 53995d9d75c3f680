/**
 * The name an ad-hoc server gets from its command line when `--name` gives none: the
 * package, module, image or script it runs, read the way each runner reads its words.
 */
import { describe, expect, it } from 'vitest';
import { adHocName } from '../src/cli/ad-hoc-name.js';
import { adHocServers } from '../src/cli/context.js';

const id = (value: string, cwd = '/home/me/src/weather') => adHocServers({ adHoc: [{ kind: 'stdio', value }] }, cwd)[0]!.id;

describe('the name of an ad-hoc server', () => {
  it.each([
    ['npx -y @modelcontextprotocol/server-everything', 'server-everything'],
    ['npx -y @modelcontextprotocol/server-filesystem /tmp /var/data', 'server-filesystem'],
    ['npx -y @playwright/mcp@latest --headless', 'playwright'],
    ['npx -y chrome-devtools-mcp@latest', 'chrome-devtools-mcp'],
    ['npx --yes --package=@acme/tools acme-mcp --port 1', 'acme-mcp'],
    ['npx -y mcp-remote https://mcp.linear.example/sse', 'mcp-linear-example'],
    ['pnpm dlx @notionhq/notion-mcp-server', 'notion-mcp-server'],
    ['npm exec -- @upstash/context7-mcp', 'context7-mcp'],
    ['uvx mcp-server-fetch', 'mcp-server-fetch'],
    ['uvx mcp-server-git==2025.1.14 --repository /src/project', 'mcp-server-git'],
    ['uvx --from git+https://github.com/acme/tools acme-mcp', 'acme-mcp'],
    ['uv tool run --python 3.12 mcp-server-time', 'mcp-server-time'],
    ['pipx run mcp-server-fetch', 'mcp-server-fetch'],
    ['python -m mcp_server_git --repository .', 'mcp-server-git'],
    ['python3.12 -u server.py', 'weather'],
    ['uv run --directory /opt/tools/fetcher main.py', 'fetcher'],
    ['docker run -i --rm -e GITHUB_TOKEN ghcr.io/github/github-mcp-server:latest stdio', 'github-mcp-server'],
    ['docker run -i --rm --network host mcp/fetch', 'fetch'],
    ['node ./node_modules/@scope/pkg/dist/index.js', 'pkg'],
    ['node /usr/lib/node_modules/some-server/build/index.js --verbose', 'some-server'],
    ['node /home/me/projects/notes-mcp/dist/index.js', 'notes-mcp'],
    ['node --env-file .env build/index.js', 'weather'],
    ['node fleet-server.mjs', 'fleet-server'],
    ['node -e "console.log(1)"', 'node'],
    ['deno run -A /srv/kv-mcp/src/main.ts', 'kv-mcp'],
    ['env DEBUG=1 node /srv/weather-mcp/index.js', 'weather-mcp'],
    ['FOO=bar /usr/local/bin/github-mcp-server stdio', 'github-mcp-server'],
    ["'C:\\Tools\\my-server.exe' --stdio", 'my-server'],
  ])('%s is %s', (command, expected) => {
    expect(id(command)).toBe(expected);
  });

  it('takes the folder a generic file is in, past build and source folders, and the file name when there is none', () => {
    expect(adHocName('node', ['index.js'])).toBe('index');
    expect(adHocName('node', ['dist/index.js'], '/work/calendar-server')).toBe('calendar-server');
    expect(adHocName('./src/server.py', [], '/')).toBe('server');
  });

  it('numbers servers that would share a name, and --name wins', () => {
    const servers = adHocServers({ adHoc: [{ kind: 'stdio', value: 'uvx mcp-server-fetch' }, { kind: 'stdio', value: 'uvx mcp-server-fetch' }, { kind: 'stdio', value: 'uvx mcp-server-fetch', name: 'mine' }] }, '/');
    expect(servers.map((server) => server.id)).toEqual(['mcp-server-fetch', 'mcp-server-fetch-2', 'mine']);
  });
});
