/**
 * The file behind a fleet: the loaded document, saving the registry into it (atomically,
 * one save at a time, templates unexpanded, without losing what another writer put there
 * meanwhile) and following it on disk.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { McpFleetError } from '../mcp/errors.js';
import { Mutex } from '../mcp/locks.js';
import type { McpLogger } from '../mcp/logger.js';
import { writeFileAtomic } from './atomic-write.js';
import { McpConfigDocument, parseMcpConfig } from './config-file.js';
import type { McpConfigDialect } from './dialects.js';
import { mergeServers } from './diff.js';
import type { McpFleetServerConfig } from './server-config.js';
import { ConfigWatcher } from './watch.js';

/** The text of a file, without a byte order mark; `undefined` when there is none. */
async function readText(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export class FleetFile {
  /** Saves and reads of the file for a reload run one at a time, so neither mistakes the other's text. */
  private readonly lock = new Mutex();
  private watcher: ConfigWatcher | undefined;
  /** The registry as it was when registry and file last agreed (load, save, reload). */
  private synced: McpFleetServerConfig[];

  constructor(
    private document: McpConfigDocument | undefined,
    /** The dialect of a new file, when the fleet was built in code. */
    private readonly dialect: McpConfigDialect,
    private readonly workspaceFolder: () => string,
    /** The registry's servers now, as written. */
    private readonly registry: () => McpFleetServerConfig[],
    /** The fields servers added to the registry carry from another file, for when they become new entries. */
    private readonly unknownFields: () => ReadonlyMap<string, Readonly<Record<string, unknown>>>,
    private readonly logger: McpLogger,
  ) {
    this.synced = document?.servers() ?? [];
  }

  /** The document as last loaded, saved or reloaded. */
  get current(): McpConfigDocument | undefined {
    return this.document;
  }

  /** Records that the registry now matches the file (after a reload was applied). */
  markSynced(): void {
    this.synced = this.registry();
  }

  /**
   * Writes the registry to `path` (default: the file's own path), in `dialect` (default:
   * the document's). To its own file, what another writer changed since the last load or
   * save is kept: the servers the registry did not change are written as the file has
   * them now (see `mergeServers`), and everything outside the servers stays; the result
   * becomes the current document. Elsewhere (a backup, an export), the file written is
   * the current document with the registry's servers, everything else it holds kept, and
   * whatever `path` held before is replaced: saving to a path writes the fleet's file
   * there, it does not merge into another one (load that one and add servers to it for
   * that, as `mcp-fleet config import` does). The fleet's own file stays its file. A
   * fleet built in code has no document yet: its first save renders into the file at
   * `path` when there is one (keeping what it holds besides the servers), else into a new
   * one, and makes the result its file.
   */
  async save(path?: string, dialect?: McpConfigDialect): Promise<void> {
    await this.lock.run(async () => {
      const target = path === undefined ? this.document?.path : resolve(path);
      if (target === undefined) {
        throw new McpFleetError('config_path_missing', 'This fleet was not loaded from a file; pass the path to save(path).');
      }
      const ours = this.registry();
      const loaded = this.document;
      const own = loaded !== undefined && loaded.path === target;
      let base: McpConfigDocument;
      let servers: McpFleetServerConfig[];
      if (loaded !== undefined && !own) {
        base = loaded;
        servers = ours;
      } else {
        base = this.baseFor(target, await readText(target), dialect);
        // To its own file: the registry's changes since the last sync, over the file as it is now.
        servers = own ? mergeServers(this.synced, ours, base.servers()) : ours;
      }
      const written = dialect ?? base.dialect;
      const text = base.render(servers, { dialect: written, unknownFields: this.unknownFields() });
      await writeFileAtomic(target, text);
      if (loaded === undefined || own) {
        this.document = this.reparse(text, target, base, written);
        this.synced = ours;
      }
    });
  }

  /** The document a save to the file's own path (or a fleet's first save) renders into: the file as it is on disk now, else the loaded one, else a new one. */
  private baseFor(target: string, onDisk: string | undefined, dialect: McpConfigDialect | undefined): McpConfigDocument {
    const like = this.document;
    if (onDisk === undefined) return like ?? McpConfigDocument.create({ dialect: dialect ?? this.dialect, path: target, workspaceFolder: this.workspaceFolder() });
    if (like !== undefined && onDisk === like.text) return like;
    try {
      return parseMcpConfig(onDisk, { path: target, ...(like === undefined ? {} : { dialect: like.dialect }), ...(like?.workspaceFolder === undefined ? {} : { workspaceFolder: like.workspaceFolder }) });
    } catch (error) {
      throw new McpFleetError(
        'config_conflict',
        `${target} changed on disk and cannot be read now, so it was not overwritten: ${(error as Error).message} Fix the file, or save elsewhere with save(path).`,
        { cause: error },
      );
    }
  }

  private reparse(text: string, path: string | undefined, like: McpConfigDocument, dialect = like.dialect): McpConfigDocument {
    return parseMcpConfig(text, { dialect, ...(path === undefined ? {} : { path }), ...(like.workspaceFolder === undefined ? {} : { workspaceFolder: like.workspaceFolder }) });
  }

  /**
   * Follows the file: each edit that changes its text is parsed and handed to `onEdit`
   * with the document before it (which applies the difference), or, when it does not
   * parse, to `onError` (the document stays). The file is read again under the save
   * lock, so a save in flight is never mistaken for an edit.
   */
  watch(onEdit: (previous: McpConfigDocument, next: McpConfigDocument) => Promise<void>, onError: (error: Error) => void): void {
    if (this.watcher !== undefined) return;
    const path = this.document?.path;
    if (path === undefined) {
      throw new McpFleetError('config_path_missing', 'This fleet has no file to watch; load it with McpServerManager.fromFile, or save it first.');
    }
    this.watcher = new ConfigWatcher(
      path,
      async () => {
        const edit = await this.lock.run(async () => {
          const previous = this.document;
          const text = await readText(path);
          // Our own save, a touch that changed nothing, or a file an editor is replacing.
          if (previous === undefined || text === undefined || text === previous.text) return undefined;
          try {
            const next = this.reparse(text, path, previous);
            this.document = next;
            return { previous, next };
          } catch (error) {
            this.logger.warn({ path, error: (error as Error).message }, 'the edited MCP config could not be read; the fleet is unchanged');
            onError(error instanceof Error ? error : new Error(String(error)));
            return undefined;
          }
        });
        if (edit === undefined) return;
        await onEdit(edit.previous, edit.next);
        this.markSynced();
      },
      this.logger,
    );
  }

  unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }
}
