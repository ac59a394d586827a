import type * as Crypto from 'node:crypto';
import type * as Fs from 'node:fs';
import type * as NodeModule from 'node:module';
import type * as Path from 'node:path';
import type * as Vm from 'node:vm';

/**
 * Loading a bundle with V8's code cache: what compiling it produced in an earlier session (its bytecode, the functions
 * it ran included), kept in a directory of the extension's own storage. A bundle's first list or command then skips
 * compiling its code, which is most of loading it (dist/cite.js: about 5 of 7 ms on the first `\cite{`). V8 checks the
 * cache against its own version and flags, and against the source's length only: the file is therefore named by a hash
 * of the source (and of its path, which the cache carries into stack traces), so another build never runs its bytecode.
 */

/** Node's modules, required when a bundle is first loaded rather than when the entry bundle is (activation). */
function node(): { crypto: typeof Crypto; fs: typeof Fs; module: typeof NodeModule; path: typeof Path; vm: typeof Vm } {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    crypto: require('node:crypto') as typeof Crypto,
    fs: require('node:fs') as typeof Fs,
    module: require('node:module') as typeof NodeModule,
    path: require('node:path') as typeof Path,
    vm: require('node:vm') as typeof Vm,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

/** Node's own CommonJS wrapper, its head on a line of its own so the bundle's lines and columns stay as written. */
const HEAD = '(function (exports, require, module, __filename, __dirname) {\n';
const TAIL = '\n})';
const SUFFIX = '.v8cache';

export interface LoadedBundle {
  exports: unknown;
  /** Whether V8 took the code cache (false: none yet, or it was rejected). */
  fromCache: boolean;
  /**
   * Writes what V8 compiled so far (the functions run since the load included) for the next session, whole (a
   * temporary file renamed into place), and removes this bundle's older caches. Does nothing when the cache was taken
   * or there is no directory; never throws (a failure costs the next session the compile, nothing else): resolves to
   * the error's message then.
   */
  save(): Promise<string | undefined>;
}

/**
 * `require(filename)`, with the code cache in `dir` (undefined: a plain require). One instance per file: a bundle
 * already required (or required later by another bundle) is the same module, as it is in require.cache.
 */
export function requireWithCodeCache(filename: string, dir: string | undefined): LoadedBundle {
  const { crypto, fs, module: Module, path, vm } = node();
  const cached = require.cache[filename];
  if (cached || !dir)
    return {
      // A computed path, so esbuild leaves this require to run time.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      exports: cached ? cached.exports : require(filename),
      fromCache: false,
      save: () => Promise.resolve(undefined),
    };

  const source = fs.readFileSync(filename, 'utf8');
  const name = path.basename(filename);
  const key = crypto.createHash('sha256').update(`${process.versions.v8}\0${filename}\0`).update(source).digest('hex');
  const cacheFile = path.join(dir, `${name}.${key.slice(0, 32)}${SUFFIX}`);
  let cachedData: Buffer | undefined;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    // None yet (or unreadable): compiled from the source, and saved later.
  }
  const script = new vm.Script(HEAD + source + TAIL, { filename, lineOffset: -1, cachedData });
  const fromCache = cachedData !== undefined && !script.cachedDataRejected;

  const mod = new Module.Module(filename, module);
  mod.filename = filename;
  // The module's `require` resolves from its own file, and VS Code's `vscode` module finds the extension by it.
  const req = Module.createRequire(filename);
  require.cache[filename] = mod;
  try {
    (script.runInThisContext() as (...args: unknown[]) => void).call(
      mod.exports,
      mod.exports,
      req,
      mod,
      filename,
      path.dirname(filename),
    );
  } catch (err) {
    delete require.cache[filename];
    throw err;
  }
  mod.loaded = true;

  const save = async (): Promise<string | undefined> => {
    if (fromCache) return undefined;
    const tmp = `${cacheFile}.${crypto.randomBytes(4).toString('hex')}.tmp`;
    try {
      const data = script.createCachedData();
      await fs.promises.mkdir(dir, { recursive: true });
      await fs.promises.writeFile(tmp, data);
      await fs.promises.rename(tmp, cacheFile);
      for (const other of await fs.promises.readdir(dir))
        if (other.startsWith(`${name}.`) && path.join(dir, other) !== cacheFile && !other.endsWith('.tmp'))
          await fs.promises.rm(path.join(dir, other), { force: true });
      return undefined;
    } catch (err) {
      await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
      return err instanceof Error ? err.message : String(err);
    }
  };
  return { exports: mod.exports, fromCache, save };
}
