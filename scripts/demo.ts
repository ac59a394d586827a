/**
 * One command runs the extension on the local emulator, nothing to type:
 *
 *   npm run demo            (= tsx scripts/demo.ts)
 *
 * 1. builds the extension (node esbuild.mjs);
 * 2. starts the emulator on 127.0.0.1:8787 (or any free port) with its "pro" demo key;
 * 3. opens VS Code with the extension loaded, pointed at the emulator (user setting
 *    researchDesk.baseUrl) and the demo key handed over through RESEARCH_DESK_DEMO_KEY
 *    (the extension stores it in its SecretStorage; honoured only for a loopback address),
 *    on a copy of the sample folder demo/ (in a temporary folder, so the checkout stays unchanged):
 *      - desktop VS Code when `code` is on the PATH (fresh --user-data-dir), or
 *      - otherwise VS Code's own server from the git-ignored cache (installed on first use),
 *        printing the address to open in a browser.
 * Ctrl+C stops everything it started.
 *
 * Options: --server (use the server route even when `code` exists), --port N (server port),
 * --host H (server/emulator bind address, default 127.0.0.1), --speed N (emulator agent
 * speed-up, default 1), --no-build.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { cleanNpmEnv, ensureCache } from './vscode/cache';
import { loadEmulator } from './vscode/emulator';
import { buildExtension } from './vscode/run-ext-tests';
import { startServer } from './vscode/server';
import { REPO_ROOT, UserFacingError, freePort, log, onCleanup, runMain, spawnTracked } from './vscode/util';

const DEMO_DIR = join(REPO_ROOT, 'demo');

interface Options {
  server: boolean;
  port: number;
  host: string;
  speed: number;
  build: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    server: process.env.RESEARCH_DESK_DEMO_SERVER === '1',
    port: 0,
    host: '127.0.0.1',
    speed: 1,
    build: true,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isFinite(v) || v < 0) throw new UserFacingError(`${a} needs a number`);
      return v;
    };
    if (a === '--server') o.server = true;
    else if (a === '--port') o.port = num();
    else if (a === '--speed') o.speed = num() || 1;
    else if (a === '--host') o.host = argv[++i] ?? o.host;
    else if (a === '--no-build') o.build = false;
    else throw new UserFacingError(`unknown option ${a} (options: --server --port N --host H --speed N --no-build)`);
  }
  return o;
}

/** The desktop `code` launcher on the PATH, if any. */
function findCode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, 'code');
    if (existsSync(p)) return p;
  }
  return undefined;
}

const DEMO_USER_SETTINGS = {
  // Opens demo/README.md (how to start) when the window opens.
  'workbench.startupEditor': 'readme',
  // No "open the parent git repository?" prompt.
  'git.openRepositoryInParentFolders': 'never',
  'workbench.tips.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
};

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  if (!existsSync(DEMO_DIR)) throw new UserFacingError(`The sample folder ${DEMO_DIR} is missing.`);
  if (o.build) await buildExtension(false);
  // The window works on a copy: citing and tidying write to its files, and the checkout's demo/ stays as committed.
  const workDir = mkdtempSync(join(tmpdir(), 'research-desk-demo-folder-'));
  const folder = join(workDir, 'demo');
  cpSync(DEMO_DIR, folder, { recursive: true });
  onCleanup(() => rmSync(workDir, { recursive: true, force: true }));
  log('demo', `working on a copy of demo/ at ${folder} (deleted when the demo stops)`);

  // Emulator with a ready demo key.
  const emu = loadEmulator();
  const demoKey = emu.DEMO_KEYS.pro;
  if (!demoKey) throw new UserFacingError('The emulator exports no DEMO_KEYS.pro.');
  const emuPort = await freePort(8787);
  if (emuPort !== 8787) log('demo', 'port 8787 is taken: the emulator uses another port');
  // Always on loopback: the extension host runs on this machine, and the demo key is only
  // honoured for a loopback address.
  const emulator = await emu.startEmulator({ port: emuPort, host: '127.0.0.1', speed: o.speed, quiet: true });
  onCleanup(() => void emulator.close());
  const env = { RESEARCH_DESK_DEMO_KEY: demoKey, RESEARCH_DESK_EMULATOR_URL: emulator.url };
  const userSettings = {
    ...DEMO_USER_SETTINGS,
    'researchDesk.baseUrl': emulator.url,
    'researchDesk.mcpUrl': `${emulator.url}/mcp`,
  };

  const code = o.server ? undefined : findCode();
  if (code) {
    // Desktop VS Code in a throwaway profile: nothing of the person's own setup changes.
    const tmp = mkdtempSync(join(tmpdir(), 'research-desk-demo-'));
    onCleanup(() => rmSync(tmp, { recursive: true, force: true }));
    mkdirSync(join(tmp, 'user', 'User'), { recursive: true });
    writeFileSync(join(tmp, 'user', 'User', 'settings.json'), JSON.stringify(userSettings, null, 2) + '\n');
    const args = [
      '--new-window',
      '--wait',
      `--extensionDevelopmentPath=${REPO_ROOT}`,
      `--user-data-dir=${join(tmp, 'user')}`,
      `--extensions-dir=${join(tmp, 'extensions')}`,
      '--disable-workspace-trust',
      folder,
    ];
    try {
      const v = execFileSync(code, ['--version'], { encoding: 'utf8', timeout: 20_000 }).split('\n')[0];
      log('demo', `desktop VS Code ${v} (${code})`);
    } catch {
      log('demo', `using ${code}`);
    }
    const child = spawnTracked(code, args, { env: { ...cleanNpmEnv(), ...env }, stdio: 'inherit' });
    banner([
      `Emulator:  ${emulator.url}  (demo key of the "pro" plan, stored for you)`,
      'VS Code:   a new window opens on a copy of demo/ with Research Desk loaded.',
      'Click the Research Desk icon in the activity bar to start.',
      'Close that window or press Ctrl+C here to stop.',
    ]);
    const exitCode = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? 0)));
    log('demo', 'VS Code closed: stopping the emulator');
    await emulator.close();
    return exitCode;
  }

  // Offline route: VS Code's own server from the cache, opened in a browser.
  log(
    'demo',
    "`code` is not on the PATH: using VS Code's server (its first use downloads it from the npm registry into .vscode-test/ and builds it, about 3 minutes; progress follows)",
  );
  const cache = await ensureCache();
  const port = o.port || (await freePort(8090));
  const server = await startServer({
    cache,
    host: o.host,
    port,
    trusted: true,
    // The smoke-test driver (needed for `extensionDevelopmentPath` in the URL) hides every
    // notification toast, so the built extension is installed into the server's fresh
    // extensions directory instead: VS Code behaves exactly as for a person.
    smokeTestDriver: false,
    installExtensions: [REPO_ROOT],
    env,
    userSettings,
  });
  const url = server.workbenchUrl({ folder, skipWelcome: false });
  banner([
    `Emulator:  ${emulator.url}  (demo key of the "pro" plan, stored for you)`,
    `VS Code ${cache.vscodeVersion} is ready. Open this address in your browser:`,
    '',
    `  ${url}`,
    '',
    'Then click the Research Desk icon in the activity bar. Press Ctrl+C here to stop.',
  ]);
  // A line for scripts (scripts/vscode/verify-demo.ts reads it).
  console.log(`DEMO_URL=${url}`);
  // Runs until Ctrl+C (util's handlers stop the server and the emulator).
  await new Promise<never>(() => undefined);
  return 0;
}

function banner(lines: string[]): void {
  const width = Math.max(...lines.map((l) => l.length)) + 4;
  const rule = '='.repeat(Math.min(width, 120));
  console.log(`\n${rule}\n  Research Desk demo\n${rule}\n${lines.map((l) => `  ${l}`).join('\n')}\n${rule}\n`);
}

runMain(main);
