/**
 * Small helpers shared by the real-VS Code scripts: logging, child processes that are
 * always cleaned up (whole process group), and time limits on every wait.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

/** The repository root (scripts/vscode/ is two levels below it). */
export const REPO_ROOT = resolve(__dirname, '..', '..');

export function log(tag: string, message: string): void {
  const t = new Date().toISOString().slice(11, 19);
  process.stderr.write(`[${t}] [${tag}] ${message}\n`);
}

/** An error whose message is meant for the person running the script (no stack needed). */
export class UserFacingError extends Error {
  override name = 'UserFacingError';
}

/** Rejects with a clear message when `promise` does not settle within `ms`. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new UserFacingError(`${what}: no result within ${Math.round(ms / 1000)} s (time limit)`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, limit]);
  } finally {
    clearTimeout(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A free TCP port on 127.0.0.1 (or `preferred` when it is free). */
export async function freePort(preferred = 0): Promise<number> {
  const tryPort = (p: number) =>
    new Promise<number>((res, rej) => {
      const srv = createServer();
      srv.unref();
      srv.once('error', rej);
      srv.listen(p, '127.0.0.1', () => {
        const addr = srv.address();
        const port = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => res(port));
      });
    });
  if (preferred) {
    try {
      return await tryPort(preferred);
    } catch {
      /* taken: fall through to any port */
    }
  }
  return tryPort(0);
}

// ---------------------------------------------------------------------------------------
// Child processes: each is started in its own process group so that closing it kills the
// whole tree (VS Code's server forks the extension host, file watcher, pty host...).
// Everything still running is killed when this process exits or gets SIGINT/SIGTERM.

const live = new Set<ChildProcess>();
let hooksInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

const cleanupCallbacks = new Set<() => void>();

/** Registers a synchronous callback run on exit / SIGINT / SIGTERM (e.g. closing a server). */
export function onCleanup(fn: () => void): () => void {
  installHooks();
  cleanupCallbacks.add(fn);
  return () => cleanupCallbacks.delete(fn);
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  const killAll = () => {
    for (const fn of cleanupCallbacks) {
      try {
        fn();
      } catch {
        /* best effort */
      }
    }
    for (const c of live) killGroup(c, 'SIGKILL');
    live.clear();
  };
  process.on('exit', killAll);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      log('cleanup', `${sig}: stopping everything this script started`);
      killAll();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    });
  }
}

/** Spawns `cmd` in its own process group, tracked for cleanup. */
export function spawnTracked(cmd: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  installHooks();
  const child = spawn(cmd, args, { ...options, detached: true });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

/** Kills the child's process group: SIGTERM, then SIGKILL after `graceMs`. */
export async function killTree(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    // The leader is gone, but its group may still hold children.
    killGroup(child, 'SIGKILL');
    live.delete(child);
    return;
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await Promise.race([exited, sleep(graceMs + 2000)]);
  clearTimeout(timer);
  killGroup(child, 'SIGKILL'); // stragglers in the group
  live.delete(child);
}

/**
 * Runs a command to completion with a time limit, streaming its output through `log`
 * (last lines kept for the error message). Resolves on exit code 0.
 */
export async function run(
  cmd: string,
  args: string[],
  options: SpawnOptions & { timeoutMs: number; tag: string; quiet?: boolean },
): Promise<void> {
  const { timeoutMs, tag, quiet, ...spawnOptions } = options;
  const child = spawnTracked(cmd, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const onData = (buf: Buffer) => {
    for (const line of buf.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      if (!quiet) log(tag, line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const done = new Promise<void>((res, rej) => {
    child.once('error', rej);
    child.once('exit', (code, signal) => {
      if (code === 0) res();
      else
        rej(
          new UserFacingError(
            `${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}). Last output:\n${tail.join('\n')}`,
          ),
        );
    });
  });
  try {
    await withTimeout(done, timeoutMs, `${tag}: ${cmd} ${args.slice(0, 3).join(' ')}`);
  } finally {
    await killTree(child, 1000);
  }
}

/** The Chromium executable: $CHROMIUM_PATH or Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (p): p is string => !!p,
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new UserFacingError(
      'Chromium was not found (looked for $CHROMIUM_PATH, /usr/bin/chromium, /usr/bin/chromium-browser).\n' +
        'Install it with:  sudo apt-get install -y chromium',
    );
  }
  return found;
}

/** Exits with a clear message (no stack for expected failures). */
export function runMain(main: () => Promise<number | void>): void {
  main().then(
    (code) => process.exit(typeof code === 'number' ? code : 0),
    (err: unknown) => {
      if (err instanceof UserFacingError) log('error', err.message);
      else log('error', err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exit(1);
    },
  );
}
