import * as vscode from 'vscode';
import { Commands, Urls } from '../platform/ids';
import type { KeyStore } from './keyStore';
import type { Logger } from '../platform/logger';
import type { SettingsStore } from '../platform/settings';
import type { ErrorPresenter } from '../platform/errorPresenter';
import { showInfo, showWarning } from '../platform/notify';
import type { ConnectionResult } from './connection';

export interface SetKeyResult {
  saved: boolean;
  /** The service origin the key was saved for. */
  origin?: string;
  /** What checking the key found before it was saved ('connected' when it works). */
  checked?: string;
}

export interface ClearKeyResult {
  cleared: boolean;
  origin?: string;
}

/** Checks a pasted key; returns the problem as one sentence, or undefined when it looks usable. */
export function validateApiKey(value: string): string | undefined {
  const key = value.trim();
  if (!key) return vscode.l10n.t('Paste your API key, or press Escape to cancel.');
  if (/\s/.test(key))
    return vscode.l10n.t('An API key has no spaces or line breaks: paste exactly the key shown in the dashboard.');
  return undefined;
}

/** What checks a key before it is stored (Test Connection's check, with the key given; spends nothing). */
export interface KeyChecker {
  checkKey(key: string): Promise<ConnectionResult>;
}

/** Set API Key and Clear API Key. */
export class KeyCommands {
  constructor(
    private readonly keys: KeyStore,
    private readonly settings: SettingsStore,
    private readonly log: Logger,
    private readonly presenter: ErrorPresenter,
    private readonly checker: KeyChecker,
  ) {}

  async setApiKey(): Promise<SetKeyResult> {
    const { baseUrl, origin, problem } = this.settings.service;
    if (problem || !origin) {
      this.presenter.present({ message: problem ?? baseUrl, actions: ['openSettings'] }, 'error');
      return { saved: false };
    }
    const replacing = (await this.keys.get(origin)) !== undefined;
    // The key is checked before it is kept, as Test Connection checks (one free listing): a key the service refuses
    // is not stored, and the box stays open with the reason. A key that could not be checked (no network, billing)
    // is kept, and the writer is told why it was not confirmed.
    let checked: ConnectionResult | undefined;
    const value = await askForKey(baseUrl, replacing, async (v) => {
      const r = await this.checker.checkKey(v.trim());
      this.log.info(`Set API Key: checked (${r.outcome}${r.status ? ` ${r.status}` : ''}).`);
      if (r.outcome === 'unauthorized')
        return vscode.l10n.t(
          '{0} rejected this key (401). Check that you pasted the whole key, or create a new one.',
          baseUrl,
        );
      checked = r;
      return undefined;
    });
    if (value === undefined || validateApiKey(value) !== undefined) {
      this.log.info('Set API Key: cancelled.');
      return { saved: false };
    }
    await this.keys.set(value, origin);
    if (checked?.ok)
      void showInfo(vscode.l10n.t('API key saved for {0}; it works (checked without spending a call).', baseUrl));
    else {
      const test = vscode.l10n.t('Test Connection');
      void showWarning(
        vscode.l10n.t('API key saved for {0}, but it could not be checked: {1}', baseUrl, checked?.message ?? ''),
        test,
      ).then((choice) => {
        if (choice === test) void vscode.commands.executeCommand(Commands.testConnection);
      });
    }
    return { saved: true, origin, checked: checked?.outcome };
  }

  /**
   * Clears the key for the current address. No modal: the notification offers Undo instead
   * (the cleared key is held in memory only until that notification is gone), because a
   * key is shown only once in the dashboard and losing it by mistake means replacing it.
   */
  async clearApiKey(): Promise<ClearKeyResult> {
    const { baseUrl, origin } = this.settings.service;
    const previous = origin ? await this.keys.get(origin) : undefined;
    if (!origin || previous === undefined) {
      void showInfo(vscode.l10n.t('No API key is stored for {0}.', baseUrl));
      return { cleared: false, origin };
    }
    await this.keys.delete(origin);
    const undo = vscode.l10n.t('Undo');
    void showInfo(vscode.l10n.t('Cleared the API key for {0}.', baseUrl), undo).then(async (choice) => {
      if (choice === undo && (await this.keys.get(origin)) === undefined) await this.keys.set(previous, origin);
    });
    return { cleared: true, origin };
  }
}

/**
 * The password input for the key, with a button that opens the dashboard where keys are
 * created. Resolves with the accepted value, or undefined when dismissed.
 */
function askForKey(
  baseUrl: string,
  replacing: boolean,
  check: (value: string) => Promise<string | undefined>,
): Promise<string | undefined> {
  return new Promise<string | undefined>((resolve) => {
    const input = vscode.window.createInputBox();
    let accepted: string | undefined;
    input.title = vscode.l10n.t('Research Desk: Set API Key');
    input.prompt = replacing
      ? vscode.l10n.t(
          "Paste the new API key for {0}; it replaces the stored one and is kept in VS Code's secret storage, never in settings.",
          baseUrl,
        )
      : vscode.l10n.t(
          "Paste the API key for {0} (created in the account dashboard); it is kept in VS Code's secret storage, never in settings.",
          baseUrl,
        );
    input.placeholder = vscode.l10n.t('API key');
    input.password = true;
    input.ignoreFocusOut = true;
    input.buttons = [
      {
        iconPath: new vscode.ThemeIcon('link-external'),
        tooltip: vscode.l10n.t('Get a key from the account dashboard'),
      },
    ];
    input.onDidChangeValue((v) => (input.validationMessage = v ? validateApiKey(v) : undefined));
    input.onDidTriggerButton(() => void vscode.env.openExternal(vscode.Uri.parse(Urls.dashboard)));
    input.onDidAccept(async () => {
      if (input.busy) return;
      const problem = validateApiKey(input.value);
      input.validationMessage = problem;
      if (problem) return;
      const value = input.value;
      input.busy = true;
      input.enabled = false;
      input.validationMessage = undefined;
      const refused = await check(value).catch(() => undefined);
      input.busy = false;
      input.enabled = true;
      if (refused && input.value === value) {
        input.validationMessage = refused;
        return;
      }
      accepted = value;
      input.hide();
    });
    input.onDidHide(() => {
      input.dispose();
      resolve(accepted);
    });
    input.show();
  });
}
