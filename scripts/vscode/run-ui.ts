/**
 * Runs the UI flows (test/ui/flows/*.flow.ts) on a real VS Code workbench: VS Code's server
 * from the cache, headless Debian Chromium through playwright-core. Each flow gets a fresh
 * server, user-data directory and workspace folder, pointed (user setting
 * researchDesk.baseUrl) at one emulator shared by the run.
 *
 *   npx tsx scripts/vscode/run-ui.ts [--no-build] [--grep <flow name part>]
 *
 * Screenshots: test-results/ui/<flow>-<step>.png. Counts (each check() is a test):
 * test-results/ui.json {passed, failed, flows:[{name, passed, failed, failures, screenshots, seconds}]}.
 * Exits non-zero when a check failed or a flow could not run.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { WorkbenchDriver } from '../../test/ui/driver';
import { FlowAborted, type FlowContext, type FlowResult, type UiFlow } from '../../test/ui/harness';
import { type VsCodeCache, ensureCache } from './cache';
import { loadEmulator, type RunningEmulator } from './emulator';
import { buildExtension } from './run-ext-tests';
import { SCRIPTED_MODEL_DIR, startServer } from './server';
import { type PwBrowser, launchChromium, openWorkbench } from './workbench';
import { REPO_ROOT, UserFacingError, log, runMain, withTimeout } from './util';

export const EXTENSION_ID = 'research-desk.research-desk';
const FLOWS_DIR = join(REPO_ROOT, 'test', 'ui', 'flows');
const SHOTS_DIR = join(REPO_ROOT, 'test-results', 'ui');

function discoverFlows(grep: string | undefined): UiFlow[] {
  const files = readdirSync(FLOWS_DIR)
    .filter((f) => f.endsWith('.flow.ts'))
    .sort();
  const flows: UiFlow[] = [];
  for (const f of files) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(join(FLOWS_DIR, f)) as { flow?: UiFlow };
    if (!mod.flow || typeof mod.flow.run !== 'function')
      throw new UserFacingError(`${f} does not export \`flow = defineFlow({...})\``);
    if (!grep || mod.flow.name.includes(grep)) flows.push(mod.flow);
  }
  return flows;
}

/** Copies the extension host's log files under `from` (VS Code's dated logs directory) to `to`; returns how many. */
function keepLogs(from: string, to: string): number {
  if (!existsSync(from)) return 0;
  let n = 0;
  for (const rel of readdirSync(from, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.log') || !/exthost/.test(rel)) continue;
    mkdirSync(dirname(join(to, rel)), { recursive: true });
    copyFileSync(join(from, rel), join(to, rel));
    n++;
  }
  return n;
}

/** Runs one flow in a fresh window; never throws (failures are counted). */
export async function runFlow(
  flow: UiFlow,
  deps: { cache: VsCodeCache; browser: PwBrowser; emulator: RunningEmulator; keys: Record<string, string> },
): Promise<FlowResult> {
  const started = Date.now();
  const result: FlowResult = { name: flow.name, passed: 0, failed: 0, failures: [], screenshots: [], seconds: 0 };
  const workspace = mkdtempSync(join(tmpdir(), `research-desk-ui-${flow.name}-`));
  writeFileSync(join(workspace, 'draft.md'), '# Draft\n\nDoes caffeine improve short-term alertness?\n');
  for (const [rel, content] of Object.entries(flow.files ?? {})) {
    mkdirSync(dirname(join(workspace, rel)), { recursive: true });
    writeFileSync(join(workspace, rel), content);
  }
  const modelLog = `${workspace}-scripted-model.jsonl`;
  let server: Awaited<ReturnType<typeof startServer>> | undefined;
  let wb: Awaited<ReturnType<typeof openWorkbench>> | undefined;
  let driver: WorkbenchDriver | undefined;
  const fail = (title: string, err: unknown) => {
    result.failed++;
    result.failures.push({ title, error: err instanceof Error ? err.message : String(err) });
    log(`ui ${flow.name}`, `FAILED ${title}: ${err instanceof Error ? err.message : String(err)}`);
  };
  try {
    server = await startServer({
      cache: deps.cache,
      // The extension hosts' logs (ours among them), kept for a failure: read once the server has stopped, as the
      // running host has not written all of its log out.
      beforeRemove: (dataDir) => {
        const kept = result.failed ? keepLogs(join(dataDir, 'user', 'logs'), join(SHOTS_DIR, `${flow.name}-logs`)) : 0;
        if (kept)
          log(
            `ui ${flow.name}`,
            `${kept} log files of the failure: ${relative(REPO_ROOT, SHOTS_DIR)}/${flow.name}-logs`,
          );
      },
      trusted: flow.trusted ?? true,
      // With the smoke-test driver the workbench shows no notification toasts, and without
      // it the URL's extensionDevelopmentPath is ignored: the extension is installed into the
      // fresh extensions directory instead (a symlink to the repository, as built).
      smokeTestDriver: false,
      installExtensions: [REPO_ROOT, SCRIPTED_MODEL_DIR],
      userSettings: {
        'researchDesk.baseUrl': deps.emulator.url,
        ...(typeof flow.userSettings === 'function' ? flow.userSettings(deps.emulator.url) : flow.userSettings),
      },
      env: {
        RESEARCH_DESK_EMULATOR_URL: deps.emulator.url,
        RESEARCH_DESK_DEMO_KEY: undefined,
        SCRIPTED_MODEL_UI: '1',
        SCRIPTED_MODEL_LOG: modelLog,
        ...flow.env,
      },
    });
    const url = server.workbenchUrl({ folder: workspace });
    wb = await openWorkbench(deps.browser, url);
    driver = new WorkbenchDriver(wb.page, SHOTS_DIR);
    const d = driver;
    const tReady = Date.now();
    await d.ready();
    log(`ui ${flow.name}`, `window ready in ${((Date.now() - tReady) / 1000).toFixed(1)} s`);
    const ctx: FlowContext = {
      driver: d,
      emulator: { url: deps.emulator.url, keys: deps.keys, control: deps.emulator.control },
      workspace,
      extensionId: EXTENSION_ID,
      async check(title, fn) {
        const tc = Date.now();
        try {
          await fn();
          result.passed++;
          log(`ui ${flow.name}`, `ok ${title} (${((Date.now() - tc) / 1000).toFixed(1)} s)`);
        } catch (e) {
          fail(title, e);
          throw new FlowAborted(title);
        }
      },
      async shot(name, page) {
        const file = await (page ? new WorkbenchDriver(page, SHOTS_DIR) : d).screenshot(`${flow.name}-${name}`);
        result.screenshots.push(relative(REPO_ROOT, file));
        return file;
      },
      scriptedModelLog: () =>
        existsSync(modelLog)
          ? readFileSync(modelLog, 'utf8')
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l) as ReturnType<FlowContext['scriptedModelLog']>[number])
          : [],
    };
    await withTimeout(flow.run(ctx), flow.timeoutMs ?? 3 * 60_000, `UI flow ${flow.name}`);
  } catch (e) {
    if (!(e instanceof FlowAborted)) fail(`flow ${flow.name} ran to the end`, e);
    if (driver) {
      const file = await driver.screenshot(`${flow.name}-FAILED`).catch(() => undefined);
      if (file) {
        result.screenshots.push(relative(REPO_ROOT, file));
        log(`ui ${flow.name}`, `screenshot of the failure: ${relative(REPO_ROOT, file)}`);
      }
    }
  } finally {
    await wb?.close();
    await server?.close();
    rmSync(workspace, { recursive: true, force: true });
    rmSync(modelLog, { force: true });
  }
  result.seconds = (Date.now() - started) / 1000;
  return result;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  let build = true;
  let grep: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--no-build') build = false;
    else if (argv[i] === '--grep') grep = argv[++i];
    else throw new UserFacingError(`unknown argument ${argv[i]}`);
  }
  const t0 = Date.now();
  if (build) await buildExtension(false);
  const flows = discoverFlows(grep);
  if (flows.length === 0) throw new UserFacingError(`no UI flow matched${grep ? ` "${grep}"` : ''} in ${FLOWS_DIR}`);
  rmSync(SHOTS_DIR, { recursive: true, force: true });
  mkdirSync(SHOTS_DIR, { recursive: true });

  const cache = await ensureCache();
  const browser = await launchChromium(cache);
  const emuMod = loadEmulator();
  const emulator = await emuMod.startEmulator({ port: 0, controlApi: true, rateLimits: false, speed: 50, quiet: true });
  log('emulator', `listening on ${emulator.url}`);
  const results: FlowResult[] = [];
  try {
    for (const flow of flows) {
      log('ui', `--- flow ${flow.name} ---`);
      // Each flow starts from the emulator's start state (usage, keys, threads, faults), as it
      // starts from a fresh VS Code window: one flow's used-up pool must not leak into the next.
      (emulator.control as { reset(): void }).reset();
      const r = await runFlow(flow, { cache, browser, emulator, keys: emuMod.DEMO_KEYS });
      log('ui', `${flow.name}: ${r.passed} passed, ${r.failed} failed (${r.seconds.toFixed(1)} s)`);
      results.push(r);
    }
  } finally {
    await browser.close().catch(() => undefined);
    await emulator.close();
  }
  const passed = results.reduce((s, r) => s + r.passed, 0);
  const failed = results.reduce((s, r) => s + r.failed, 0);
  const seconds = (Date.now() - t0) / 1000;
  writeFileSync(
    join(REPO_ROOT, 'test-results', 'ui.json'),
    JSON.stringify({ passed, failed, seconds, vscodeVersion: cache.vscodeVersion, flows: results }, null, 2) + '\n',
  );
  console.log(
    `\nUI flows (VS Code ${cache.vscodeVersion} server + headless Chromium): ${passed} passed, ${failed} failed ` +
      `in ${results.length} flow(s), ${seconds.toFixed(1)} s. Screenshots: test-results/ui/  Results: test-results/ui.json`,
  );
  return failed > 0 ? 1 : 0;
}

if (require.main === module) runMain(main);
