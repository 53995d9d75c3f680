/**
 * The name an ad-hoc server goes by when `--name` gives none: what it runs, as a person
 * would call it, since it is typed in every `call <server>.<tool>`. A package a runner
 * fetches (`npx -y @modelcontextprotocol/server-everything` → `server-everything`,
 * `uvx mcp-server-fetch`, `docker run ... mcp/fetch:latest` → `fetch`), a Python module
 * (`python -m mcp_server_git` → `mcp-server-git`), a script by its package or folder when
 * its file name says nothing (`node ./node_modules/@scope/pkg/dist/index.js` → `pkg`,
 * `node ~/src/weather/build/index.js` → `weather`), else the program itself. The server's
 * own arguments never name it (`server-filesystem /tmp` is not `tmp`).
 */
import { resolve } from 'node:path';

/** File names that say only that a file is an entry point: the folder around them names the server. */
const GENERIC_FILES = new Set(['index', 'main', 'server', 'cli', 'app', 'start', 'run', 'mcp', 'entry', 'mod', '__main__', '__init__']);
/** Folders a build or a layout puts entry points in: the one above them names the project. */
const LAYOUT_FOLDERS = new Set(['dist', 'build', 'src', 'bin', 'lib', 'out', 'cjs', 'esm', 'es', 'scripts', '.bin']);
/** Package names too plain to tell servers apart (`@playwright/mcp`): their scope names them. */
const GENERIC_PACKAGES = new Set(['mcp', 'server', 'mcp-server', 'cli']);
/** Extensions a script's name is read without. */
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]sx?|py|pyz|rb|sh|exe|cmd|bat|ps1|jar)$/i;

/** Options of the runners and interpreters below that take the next word as their value. */
const NPX_VALUED = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache', '--prefix', '-w', '--workspace']);
const UV_VALUED = new Set(['--from', '--spec', '--with', '--with-editable', '--with-requirements', '--python', '-p', '--directory', '--project', '--index', '--index-url', '--extra-index-url', '--env-file']);
const PYTHON_VALUED = new Set(['-W', '-X', '--check-hash-based-pycs']);
const NODE_VALUED = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '--env-file', '--inspect-port', '--conditions', '-C', '--title']);
const DENO_VALUED = new Set(['--config', '-c', '--import-map', '--env-file', '--location', '--lock', '--cert', '--inspect', '--reload', '-r']);
const DOCKER_VALUED = new Set([
  '-e', '--env', '--env-file', '-v', '--volume', '-p', '--publish', '-w', '--workdir', '-u', '--user', '--name', '--network', '--net',
  '-l', '--label', '--mount', '--entrypoint', '--platform', '--pull', '-m', '--memory', '--cpus', '-h', '--hostname', '--add-host',
  '--device', '--cap-add', '--cap-drop', '--security-opt', '--ulimit', '--log-driver', '--log-opt', '--restart', '--tmpfs', '--gpus',
  '--shm-size', '--ipc', '--pid', '--dns', '--expose', '--runtime', '--stop-signal', '--stop-timeout', '--group-add', '--cidfile',
]);
const ENV_VALUED = new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']);

/** The index of the first word that is neither an option nor an option's value (after `--`, the next word); -1 when none is. */
function firstOperand(words: readonly string[], valued: ReadonlySet<string>, from = 0): number {
  for (let i = from; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return i + 1 < words.length ? i + 1 : -1;
    if (!word.startsWith('-') || word === '-') return i;
    if (valued.has(word)) i++;
  }
  return -1;
}

/** An npm package spec's name: `@scope/name@1.2` → `name` (or `scope` when the name is plain); a path or URL is read as a file. */
function npmName(spec: string): string {
  const bare = spec.replace(/^npm:/, '');
  const scoped = /^@([^/@\s]+)\/([^@\s/]+)(?:@.*)?$/.exec(bare);
  if (scoped !== null) return GENERIC_PACKAGES.has(scoped[2]!) ? scoped[1]! : scoped[2]!;
  const plain = /^([^@\s/:]+)(?:@.*)?$/.exec(bare);
  return plain === null ? fileName(bare) : plain[1]!;
}

/** A Python requirement's project name: `mcp-server-git==1.0`, `pkg[extra]>=2` → the name. */
function pythonName(spec: string): string {
  return /^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? spec;
}

/** A module's top package, in the project's spelling: `mcp_server_git.server` → `mcp-server-git`. */
function moduleName(module: string): string {
  const parts = module.split('.').filter((part) => !GENERIC_FILES.has(part));
  return (parts[0] ?? module).replaceAll('_', '-');
}

/** An image reference's repository name: `ghcr.io/github/github-mcp-server:latest` → `github-mcp-server`. */
function imageName(image: string): string {
  const parts = image.replace(/@sha256:[0-9a-f]+$/i, '').split('/');
  const last = parts.pop()!.replace(/:[^:]*$/, '');
  return GENERIC_PACKAGES.has(last) && parts.length > 0 ? parts.pop()! : last;
}

/**
 * A script or program by its path: the package a `node_modules/<pkg>` path holds, else
 * the file's name, or the nearest folder that is not a build or layout folder when the
 * file's name is generic (a relative path is read from `cwd` for that).
 */
function fileName(path: string, cwd?: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== '' && part !== '.');
  const modules = parts.lastIndexOf('node_modules');
  if (modules !== -1 && modules + 1 < parts.length - 1) {
    const first = parts[modules + 1]!;
    return first.startsWith('@') && modules + 2 < parts.length ? npmName(`${first}/${parts[modules + 2]!}`) : npmName(first);
  }
  const base = (parts.at(-1) ?? path).replace(SCRIPT_EXTENSION, '');
  if (!GENERIC_FILES.has(base.toLowerCase())) return base;
  const folders = (cwd === undefined ? parts : resolve(cwd, path).split(/[\\/]/)).slice(0, -1);
  const folder = folders.reverse().find((part) => part !== '' && part !== '..' && part !== '~' && !LAYOUT_FOLDERS.has(part.toLowerCase()));
  return folder ?? base;
}

/** The program's name without its folder, extension or version suffix (`python3.12` → `python`). */
function programOf(command: string): string {
  return (command.split(/[\\/]/).pop() ?? command).replace(/\.(?:exe|cmd)$/i, '').replace(/(?<=^(?:python|node|deno|bun))[\d.]+$/, '');
}

/** The host (and port) of the first URL among `words`, for a proxy such as `mcp-remote`. */
function urlHost(words: readonly string[]): string | undefined {
  for (const word of words) {
    try {
      const url = new URL(word);
      if (url.protocol === 'http:' || url.protocol === 'https:') return `${url.hostname}${url.port === '' ? '' : `-${url.port}`}`;
    } catch {
      // Not a URL.
    }
  }
  return undefined;
}

/** A package a runner fetches and runs (`npx`, `uvx`, ...): with `--package`/`--from` the command after it names the server. */
function runnerName(args: readonly string[], valued: ReadonlySet<string>, packageFlags: readonly string[], name: (spec: string) => string): string | undefined {
  const operand = firstOperand(args, valued);
  if (operand === -1) return undefined;
  const named = args.some((word, i) => (packageFlags.includes(word) && i + 1 < args.length) || packageFlags.some((flag) => word.startsWith(`${flag}=`)));
  const spec = args[operand]!;
  const result = named ? fileName(spec) : name(spec);
  // A proxy to a remote server is better known by that server's host.
  return result === 'mcp-remote' ? (urlHost(args.slice(operand + 1)) ?? result) : result;
}

/** A script an interpreter runs: its first operand, unless the code is given inline (`-e`, `-c`). */
function scriptName(args: readonly string[], valued: ReadonlySet<string>, inline: readonly string[], cwd: string | undefined): string | undefined {
  const operand = firstOperand(args, valued);
  if (operand === -1 || args.slice(0, operand).some((word) => inline.includes(word))) return undefined;
  return fileName(args[operand]!, cwd);
}

/** The name of what `command args...` runs (see the module comment); `undefined` when nothing in it reads as a name. */
export function adHocName(command: string, args: readonly string[], cwd?: string): string | undefined {
  const program = programOf(command).toLowerCase();
  const [sub, ...rest] = args;
  switch (program) {
    case 'npx':
    case 'pnpx':
    case 'bunx':
      return runnerName(args, NPX_VALUED, ['-p', '--package'], npmName) ?? program;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
      if (sub === 'exec' || sub === 'x' || sub === 'dlx') return runnerName(rest, NPX_VALUED, ['-p', '--package'], npmName) ?? program;
      if (program === 'bun') return scriptName(sub === 'run' ? rest : args, NODE_VALUED, ['-e', '--eval'], cwd) ?? program;
      return program;
    case 'uvx':
      return runnerName(args, UV_VALUED, ['--from'], pythonName) ?? program;
    case 'uv':
      if (sub === 'tool' && rest[0] === 'run') return runnerName(rest.slice(1), UV_VALUED, ['--from'], pythonName) ?? program;
      if (sub === 'run') {
        // `--directory` is where uv runs, so where a relative script is.
        const directory = rest.indexOf('--directory');
        const from = directory !== -1 && directory + 1 < rest.length ? resolve(cwd ?? '/', rest[directory + 1]!) : cwd;
        return pythonLike(rest, UV_VALUED, from) ?? program;
      }
      return program;
    case 'pipx':
      return sub === 'run' ? (runnerName(rest, UV_VALUED, ['--spec'], pythonName) ?? program) : program;
    case 'python':
    case 'python3':
    case 'py':
      return pythonLike(args, PYTHON_VALUED, cwd) ?? program;
    case 'node':
    case 'tsx':
    case 'ts-node':
      return scriptName(args, NODE_VALUED, ['-e', '--eval', '-p', '--print'], cwd) ?? program;
    case 'deno':
      return sub === 'run' ? (scriptName(rest, DENO_VALUED, [], cwd) ?? program) : program;
    case 'docker':
    case 'podman': {
      if (sub !== 'run') return program;
      const operand = firstOperand(rest, DOCKER_VALUED);
      return operand === -1 ? program : imageName(rest[operand]!);
    }
    case 'env': {
      // `env [options] [NAME=value ...] command ...`: the command after them.
      let at = firstOperand(args, ENV_VALUED);
      while (at !== -1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[at]!)) at++;
      return at === -1 || at >= args.length ? undefined : adHocName(args[at]!, args.slice(at + 1), cwd);
    }
    default:
      return fileName(command, cwd);
  }
}

/** `python -m module` by its module, else the script it runs. */
function pythonLike(args: readonly string[], valued: ReadonlySet<string>, cwd: string | undefined): string | undefined {
  const module = args.indexOf('-m');
  if (module !== -1 && module + 1 < args.length && firstOperand(args.slice(0, module), valued) === -1) return moduleName(args[module + 1]!);
  return scriptName(args, valued, ['-c'], cwd);
}
