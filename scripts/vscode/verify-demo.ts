/**
 * Checks `npm run demo` end to end, as a person would use it on a machine without `code`:
 * starts scripts/demo.ts (server route) in the background, reads the address it prints,
 * opens it in headless Chromium, and checks that the extension is active and already has
 * the demo key (the Research view shows no "Set API Key" welcome), that Test Connection
 * succeeds against the emulator, then presses Ctrl+C (SIGINT) and checks that the server
 * and the emulator are gone.
 *
 *   npx tsx scripts/vscode/verify-demo.ts [--no-build]
 *
 * Screenshot: test-results/demo.png. Exits non-zero on any failure.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { WorkbenchDriver } from '../../test/ui/driver';
import { cleanNpmEnv, ensureCache } from './cache';
import { launchChromium, openWorkbench } from './workbench';
import { REPO_ROOT, UserFacingError, killTree, log, runMain, sleep, spawnTracked, withTimeout } from './util';

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.setTimeout(1500);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(false));
  });
}

async function main(): Promise<number> {
  const noBuild = process.argv.includes('--no-build');
  const cache = await ensureCache(); // so the demo's first-use install does not count against the wait below
  const demo = spawnTracked(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'scripts', 'demo.ts'), '--server', ...(noBuild ? ['--no-build'] : [])],
    {
      cwd: REPO_ROOT,
      env: { ...cleanNpmEnv(), PATH: '/usr/local/bin:/usr/bin:/bin' }, // no `code` here anyway
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const urlPromise = new Promise<string>((resolve, reject) => {
    const onData = (b: Buffer) => {
      const text = b.toString('utf8');
      out += text;
      process.stdout.write(text.replace(/^/gm, '[demo] '));
      const m = /^DEMO_URL=(\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    };
    demo.stdout?.on('data', onData);
    demo.stderr?.on('data', onData);
    demo.once('exit', (c) => reject(new UserFacingError(`npm run demo exited early (${c})`)));
  });
  const url = await withTimeout(urlPromise, 5 * 60_000, 'the demo to print its address');
  const emulatorUrl = /Emulator:\s+(http:\/\/\S+)/.exec(out)?.[1];
  if (!emulatorUrl) throw new UserFacingError('the demo did not print the emulator address');
  const server = new URL(url);
  const emu = new URL(emulatorUrl);

  let failed = 0;
  const check = async (title: string, fn: () => Promise<void>) => {
    try {
      await fn();
      log('verify-demo', `ok ${title}`);
    } catch (e) {
      failed++;
      log('verify-demo', `FAILED ${title}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };

  const browser = await launchChromium(cache);
  try {
    const wb = await openWorkbench(browser, url);
    const d = new WorkbenchDriver(wb.page, join(REPO_ROOT, 'test-results'));
    await check('the workbench opens with the sample folder', async () => {
      await d.ready();
      await d.waitUntil(
        'demo/README.md to open',
        async () => (await d.editorTabs()).some((t) => /README/.test(t)),
        30_000,
      );
    });
    await check('the extension is active and already has the demo key (no Set API Key welcome)', async () => {
      await d.openViewContainer('researchDesk');
      await d.waitUntil(
        'the key-set welcome content',
        async () => {
          const b = await d.welcomeButtons('researchDesk.results');
          return b.length > 0 && !b.some((x) => /set api key/i.test(x)) ? true : undefined;
        },
        30_000,
      );
    });
    await check('Test Connection succeeds against the demo emulator', async () => {
      await d.runCommand('Research Desk: Test Connection');
      const n = await d.waitForNotification(new RegExp(emu.host.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 30_000);
      if (n.severity === 'error' || !/works|connected/i.test(n.message) || !n.message.includes(emu.host)) {
        throw new Error(`unexpected notification: [${n.severity}] ${n.message}`);
      }
    });
    await d
      .waitUntil('progress toasts to finish', async () => !(await d.notifications()).some((n) => n.inProgress))
      .catch(() => undefined);
    await wb.page.waitForTimeout(500);
    await d.screenshot('demo').then((f) => log('verify-demo', `screenshot: ${f}`));
    await wb.close();
  } finally {
    await browser.close().catch(() => undefined);
  }

  // Ctrl+C stops everything.
  await check('Ctrl+C stops the VS Code server and the emulator', async () => {
    if (demo.pid !== undefined) process.kill(demo.pid, 'SIGINT');
    await withTimeout(
      new Promise<void>((r) => (demo.exitCode !== null ? r() : demo.once('exit', () => r()))),
      20_000,
      'the demo to stop after SIGINT',
    );
    await sleep(500);
    const stillOpen = [
      (await portOpen(server.hostname, Number(server.port))) ? `VS Code server ${server.host}` : '',
      (await portOpen(emu.hostname, Number(emu.port))) ? `emulator ${emu.host}` : '',
    ].filter(Boolean);
    if (stillOpen.length) throw new Error(`still listening: ${stillOpen.join(', ')}`);
  });
  await killTree(demo, 1000);
  console.log(
    failed ? `\nDemo check: ${failed} failure(s)` : '\nDemo check: all passed (screenshot test-results/demo.png)',
  );
  return failed ? 1 : 0;
}

runMain(main);
