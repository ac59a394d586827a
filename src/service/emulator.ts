import * as vscode from 'vscode';
import { Commands, EnvVars, Settings, Urls } from '../platform/ids';
import type { KeyChecker } from './keyCommands';
import type { KeyStore } from './keyStore';
import type { Logger } from '../platform/logger';
import type { SettingsStore } from '../platform/settings';
import { showInfo } from '../platform/notify';
import { isLoopbackHttpUrl, normalizeBaseUrl, originOf } from '../shared/url';

/**
 * The demo key the emulator accepts (a Pro plan); it opens nothing on the real service.
 * Must equal `DEMO_KEYS.pro` of test/emulator (checked by the extension-host suite).
 */
export const EMULATOR_DEMO_KEY = 'demo-pro-key-00000000000000002';

export interface UseEmulatorResult {
  used: boolean;
  baseUrl?: string;
  /** Whether a demo key was stored (false when the address already had a key). */
  storedDemoKey?: boolean;
}

interface AddressItem extends vscode.QuickPickItem {
  url?: string;
}

/**
 * Use the local emulator: offers the emulator addresses it can find (the
 * RESEARCH_DESK_EMULATOR_URL address, a loopback address already configured, the default
 * http://127.0.0.1:8787), says which ones answer, and only after the person picks one sets
 * `researchDesk.baseUrl` in user settings and stores the demo key for that address. The
 * key for the real service stays stored (keys are kept per address).
 */
export class EmulatorCommand {
  constructor(
    private readonly keys: KeyStore,
    private readonly settings: SettingsStore,
    private readonly log: Logger,
    private readonly checker: KeyChecker,
  ) {}

  async run(): Promise<UseEmulatorResult> {
    const candidates = this.candidates();
    const answering = await Promise.all(candidates.map((url) => probe(url)));
    const items: AddressItem[] = candidates.map((url, i) => ({
      url,
      label: `$(${answering[i] ? 'pass' : 'debug-disconnect'}) ${url}`,
      description: answering[i] ? vscode.l10n.t('emulator answering') : vscode.l10n.t('not answering yet'),
      detail: answering[i]
        ? vscode.l10n.t('Point Research Desk at this emulator and store a demo key for it.')
        : vscode.l10n.t(
            'Start it with "npm run emulator" in the Research Desk repository; you can pick it now and start it later.',
          ),
    }));
    // Answering addresses first, in candidate order.
    items.sort((a, b) => Number(answering[candidates.indexOf(b.url!)]) - Number(answering[candidates.indexOf(a.url!)]));
    items.push({
      label: `$(edit) ${vscode.l10n.t('Another address…')}`,
      detail: vscode.l10n.t('An emulator on this computer at another port.'),
    });

    const picked = await vscode.window.showQuickPick(items, {
      title: vscode.l10n.t('Research Desk: Use the Local Emulator'),
      placeHolder: vscode.l10n.t(
        'The emulator imitates the research service on this computer: synthetic papers, no account, nothing billed. Pick its address.',
      ),
      ignoreFocusOut: true,
      matchOnDetail: true,
    });
    if (!picked) return { used: false };
    const url = picked.url ?? (await this.askAddress());
    if (!url) return { used: false };
    return this.use(url);
  }

  private candidates(): string[] {
    const list = [process.env[EnvVars.emulatorUrl], this.settings.service.baseUrl, Urls.defaultEmulator];
    const out: string[] = [];
    for (const raw of list) {
      if (!raw) continue;
      const url = normalizeBaseUrl(raw);
      if (isLoopbackHttpUrl(url) && !out.includes(url)) out.push(url);
    }
    return out;
  }

  private async askAddress(): Promise<string | undefined> {
    const value = await vscode.window.showInputBox({
      title: vscode.l10n.t('Research Desk: Emulator Address'),
      prompt: vscode.l10n.t(
        "The emulator's address on this computer (http://127.0.0.1, http://localhost or http://[::1] with a port).",
      ),
      value: Urls.defaultEmulator,
      ignoreFocusOut: true,
      validateInput: (v) =>
        isLoopbackHttpUrl(normalizeBaseUrl(v))
          ? undefined
          : vscode.l10n.t('Use a plain http address on this computer, e.g. {0}.', Urls.defaultEmulator),
    });
    return value === undefined ? undefined : normalizeBaseUrl(value);
  }

  private async use(url: string): Promise<UseEmulatorResult> {
    const origin = originOf(url);
    if (!origin || !isLoopbackHttpUrl(url)) return { used: false };
    await this.settings.setBaseUrl(url);
    // The emulator serves the MCP server too, on the same origin, so chat's MCP searches go there with the key.
    await this.settings.setMcpUrl(`${url}/mcp`);
    // A key already stored for this address is kept only if the emulator takes it (checked without a call); a
    // mistyped or foreign one is replaced by the demo key, so the emulator works at once.
    const stored = await this.keys.get(origin);
    const storedDemoKey =
      stored === undefined ||
      (stored !== EMULATOR_DEMO_KEY && (await this.checker.checkKey(stored)).outcome === 'unauthorized');
    if (storedDemoKey) await this.keys.set(EMULATOR_DEMO_KEY, origin);
    this.log.info(
      `Now using the emulator at ${url}${storedDemoKey ? ' with the demo key' : ' with the key already stored for it'}.`,
    );
    const test = vscode.l10n.t('Test Connection');
    void showInfo(
      vscode.l10n.t(
        'Research Desk now uses the emulator at {0}; to return to the real service, reset the settings {1} and {2} (your key for it is kept).',
        url,
        Settings.baseUrl,
        Settings.mcpUrl,
      ),
      test,
    ).then((choice) => {
      if (choice === test) void vscode.commands.executeCommand(Commands.testConnection);
    });
    return { used: true, baseUrl: url, storedDemoKey };
  }
}

/** True when something answers HTTP at `url` (any status); no key is sent. */
async function probe(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/threads?limit=1`, { signal: AbortSignal.timeout(1500), redirect: 'manual' });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}
