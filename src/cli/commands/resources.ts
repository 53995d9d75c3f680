/**
 * `mcp-fleet resources <server>` lists a server's resources and resource templates;
 * `mcp-fleet read <server> <uri>` prints a resource: text as it is, binary contents saved
 * to a temporary file whose path is printed.
 *
 * JSON: `{ resources: [...], resourceTemplates: [...] }` as the server lists them; `read`
 * prints the server's `ReadResourceResult` (`{ contents: [...] }`).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT, type ExitCode } from '../errors.js';
import type { CommandContext } from '../context.js';
import { firstLine } from '../signature.js';

export async function resources(context: CommandContext, serverId: unknown): Promise<ExitCode> {
  const manager = await (await context.fleet()).started(String(serverId), context.signal);
  const options = { signal: context.signal };
  const [listed, templates] = await Promise.all([manager.listResources(String(serverId), options), manager.listResourceTemplates(String(serverId), options)]);
  const { output } = context;
  if (output.json) {
    output.printJson({ resources: listed, resourceTemplates: templates });
    return EXIT.ok;
  }
  output.table(
    ['URI', 'NAME', 'TYPE', 'DESCRIPTION'],
    [
      ...listed.map((resource) => [output.out.cyan(resource.uri), resource.name, resource.mimeType ?? '', firstLine(resource.description, 60)]),
      ...templates.map((template) => [output.out.cyan(template.uriTemplate), template.name, template.mimeType ?? '', firstLine(template.description, 60)]),
    ],
  );
  output.note(`${listed.length} resources, ${templates.length} templates`);
  return EXIT.ok;
}

export async function read(context: CommandContext, serverId: unknown, uri: unknown): Promise<ExitCode> {
  const manager = await (await context.fleet()).started(String(serverId), context.signal);
  const result = await manager.readResource(String(serverId), String(uri), { signal: context.signal });
  const { output } = context;
  if (output.json) {
    output.printJson(result);
    return EXIT.ok;
  }
  let folder: string | undefined;
  for (const [i, content] of result.contents.entries()) {
    if ('text' in content && typeof content.text === 'string') {
      output.print(content.text);
    } else if ('blob' in content && typeof content.blob === 'string') {
      folder ??= await mkdtemp(join(tmpdir(), 'mcp-fleet-'));
      const file = join(folder, `resource-${i + 1}.bin`);
      await writeFile(file, Buffer.from(content.blob, 'base64'));
      output.print(`[${content.mimeType ?? 'binary'}, ${Buffer.byteLength(content.blob, 'base64')} bytes, saved to ${file}]`);
    }
  }
  return EXIT.ok;
}
