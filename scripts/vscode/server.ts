/**
 * Starts VS Code's own server (server-main.js from the cached code-server package, on the
 * cached Node 24) with fresh temporary user-data / server-data / extensions directories.
 *
 *   const server = await startServer({ trusted: true, env: { RESEARCH_DESK_EMULATOR_URL: url } });
 *   page.goto(server.workbenchUrl({ folder, extensionDevelopmentPath: REPO_ROOT }));
 *   await server.close();
 *
 * `env` reaches the server and hence the extension host it forks. Trusted runs pass
 * `--disable-workspace-trust`; restricted runs leave it out, so a folder opens in
 * Restricted Mode. The whole process tree is killed on close() and when this process
 * exits or receives SIGINT/SIGTERM.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type VsCodeCache, cleanNpmEnv, ensureCache } from './cache';
import { type KeyPartProxy, startKeyPartProxy } from './keyPartProxy';
import { REPO_ROOT, UserFacingError, freePort, killTree, log, onCleanup, sleep, spawnTracked } from './util';

/** The test-only scripted language model (never packaged), installed into test windows. */
export const SCRIPTED_MODEL_DIR = join(REPO_ROOT, 'test', 'fixtures', 'scripted-model');

export interface ServerOptions {
  /** Trusted workspace (`--disable-workspace-trust`) or Restricted Mode. Default true. */
  trusted?: boolean;
  /** Extra environment for the server and the extension host. */
  env?: Record<string, string | undefined>;
  /** Written to <tmp>/user/User/settings.json before start. */
  userSettings?: Record<string, unknown>;
  /** Written to <tmp>/server/data/Machine/settings.json before start. */
  machineSettings?: Record<string, unknown>;
  /** Port to listen on (0/undefined = any free port). */
  port?: number;
  /** Host to bind; default 127.0.0.1. */
  host?: string;
  /** Print the server's own output (default: only when RESEARCH_DESK_VERBOSE=1). */
  verbose?: boolean;
  /** Time limit for the server to start listening. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * Pass --enable-smoke-test-driver (default true): needed for codeAutomationExit /
   * codeAutomationLog (extension-host test runs). With it the workbench shows NO
   * notification toasts (they go only to the notification center), so UI flows and the
   * demo turn it off.
   */
  smokeTestDriver?: boolean;
  /**
   * Extension folders to install into the fresh extensions directory (as symlinks named
   * <publisher>.<name>-<version>): they load like installed extensions, without the
   * smoke-test driver that `extensionDevelopmentPath` in the URL needs.
   */
  installExtensions?: string[];
  /**
   * Extension ids to disable (`--disable-extension`). Default: $RESEARCH_DESK_DISABLE_EXTENSIONS
   * (comma-separated; empty = none) or else the built-in Copilot Chat (41 MB, activates on
   * startup finished, needs the network this machine lacks; ~2 s less per window).
   */
  disableExtensions?: string[];
  /** Keep the temporary directory after close (for debugging). */
  keepData?: boolean;
  /** Called by close() once VS Code has stopped (its logs written out), before the temporary directory is removed. */
  beforeRemove?: (dataDir: string) => void;
  cache?: VsCodeCache;
}

export interface WorkbenchUrlOptions {
  /** Absolute path of the folder to open (on this machine = the remote). */
  folder?: string;
  extensionDevelopmentPath?: string;
  extensionTestsPath?: string;
  /** Extra payload entries. */
  payload?: [string, string][];
  /** Add ['skipWelcome','true'] (default true; false lets workbench.startupEditor act). */
  skipWelcome?: boolean;
}

export interface VsCodeServer {
  port: number;
  host: string;
  /** http://host:port */
  origin: string;
  /** The temporary data root: user/, server/, extensions/. */
  dataDir: string;
  userSettingsFile: string;
  machineSettingsFile: string;
  /** The workbench address for a folder / development extension / test entry. */
  workbenchUrl(options?: WorkbenchUrlOptions): string;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions = {}): Promise<VsCodeServer> {
  const cache = options.cache ?? (await ensureCache());
  const host = options.host ?? '127.0.0.1';
  let port = options.port || (await freePort());
  // VS Code listens behind a front that adds the secret storage's key route (keyPartProxy.ts), so secrets survive a
  // reload of the workbench as they do in desktop VS Code.
  const innerPort = await freePort();
  const trusted = options.trusted ?? true;
  const verbose = options.verbose ?? process.env.RESEARCH_DESK_VERBOSE === '1';

  const dataDir = mkdtempSync(join(tmpdir(), 'research-desk-vscode-'));
  const userDir = join(dataDir, 'user');
  const serverDir = join(dataDir, 'server');
  const extensionsDir = join(dataDir, 'extensions');
  for (const d of [userDir, serverDir, extensionsDir]) mkdirSync(d, { recursive: true });
  const userSettingsFile = join(userDir, 'User', 'settings.json');
  const machineSettingsFile = join(serverDir, 'data', 'Machine', 'settings.json');
  const writeJson = (file: string, value: Record<string, unknown>) => {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
  };
  writeJson(userSettingsFile, {
    // Quiet, deterministic windows for tests and screenshots.
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'chat.disableAIFeatures': true,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'git.openRepositoryInParentFolders': 'never',
    ...options.userSettings,
  });
  writeJson(machineSettingsFile, { ...options.machineSettings });
  for (const ext of options.installExtensions ?? []) {
    const manifest = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8')) as {
      publisher: string;
      name: string;
      version: string;
    };
    symlinkSync(ext, join(extensionsDir, `${manifest.publisher}.${manifest.name}-${manifest.version}`), 'dir');
  }

  const args = [
    cache.serverMain,
    '--host',
    host,
    '--port',
    String(innerPort),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--disable-telemetry',
    '--user-data-dir',
    userDir,
    '--server-data-dir',
    serverDir,
    '--extensions-dir',
    extensionsDir,
  ];
  if (trusted) args.push('--disable-workspace-trust');
  if (options.smokeTestDriver ?? true) args.push('--enable-smoke-test-driver');
  for (const id of options.disableExtensions ?? defaultDisabledExtensions()) args.push('--disable-extension', id);

  const env: NodeJS.ProcessEnv = { ...cleanNpmEnv() };
  // The extension host must not inherit tsx's loader or a debugger from this process.
  delete env.NODE_OPTIONS;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  log(
    'server',
    `starting VS Code ${cache.vscodeVersion} server on ${host}:${port} (${trusted ? 'trusted' : 'Restricted Mode'})`,
  );
  const child = spawnTracked(cache.node, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: dataDir });
  const tail: string[] = [];
  const onData = (buf: Buffer) => {
    for (const line of buf.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 30) tail.shift();
      if (verbose) log('vscode-server', line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);

  let closed = false;
  const removeData = () => {
    if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
  };
  const unregister = onCleanup(() => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    removeData();
  });
  let front: KeyPartProxy | undefined;
  const close = async () => {
    if (closed) return;
    closed = true;
    unregister();
    await front?.close();
    await killTree(child, 3000);
    options.beforeRemove?.(dataDir);
    removeData();
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let exited: string | undefined;
  child.once('exit', (code, signal) => {
    exited = signal ?? `exit ${code}`;
  });
  for (;;) {
    if (exited !== undefined) {
      await close();
      throw new UserFacingError(`VS Code server stopped during start (${exited}). Last output:\n${tail.join('\n')}`);
    }
    if (Date.now() > deadline) {
      await close();
      throw new UserFacingError(
        `VS Code server did not answer on ${host}:${innerPort} within the time limit. Last output:\n${tail.join('\n')}`,
      );
    }
    if (await httpOk(`http://${host}:${innerPort}/version`)) break;
    await sleep(200);
  }
  // The front's port was free when it was picked, seconds ago; the system may have handed it out since (as the
  // source port of a connection). Then another free port is taken, unless the caller asked for this one.
  for (let attempt = 1; ; attempt++) {
    try {
      front = await startKeyPartProxy(host, port, innerPort);
      break;
    } catch (err) {
      if (!options.port && attempt < 4 && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        log('server', `port ${port} was taken meanwhile; trying another`);
        port = await freePort();
        continue;
      }
      await close();
      throw new UserFacingError(
        `Could not listen on http://${host}:${port}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  const origin = `http://${host}:${port}`;
  log('server', `listening on ${origin}`);

  const remote = (p: string) => `vscode-remote://${host}:${port}${p}`;
  return {
    port,
    host,
    origin,
    dataDir,
    userSettingsFile,
    machineSettingsFile,
    close,
    workbenchUrl(o: WorkbenchUrlOptions = {}) {
      const payload: [string, string][] = [];
      if (o.extensionDevelopmentPath) payload.push(['extensionDevelopmentPath', remote(o.extensionDevelopmentPath)]);
      if (o.extensionTestsPath) payload.push(['extensionTestsPath', remote(o.extensionTestsPath)]);
      if (o.skipWelcome ?? true) payload.push(['skipWelcome', 'true']);
      payload.push(...(o.payload ?? []));
      const q: string[] = [];
      if (o.folder) q.push(`folder=${encodeURIComponent(remote(o.folder))}`);
      if (payload.length) q.push(`payload=${encodeURIComponent(JSON.stringify(payload))}`);
      return `${origin}/?${q.join('&')}`;
    },
  };
}

export function defaultDisabledExtensions(): string[] {
  const env = process.env.RESEARCH_DESK_DISABLE_EXTENSIONS;
  if (env !== undefined)
    return env
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  return ['GitHub.copilot-chat'];
}

function httpOk(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 500) < 500);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
