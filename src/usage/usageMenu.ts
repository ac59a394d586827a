import * as vscode from 'vscode';
import { PLANS } from '../api';
import { Urls } from '../platform/ids';
import type { SettingsStore } from '../platform/settings';
import { PLAN_SETTING_VALUES, type PlanSetting, type UsageLedger } from './usageLedger';
import { showError } from '../platform/notify';

type MenuItem = vscode.QuickPickItem & { run: () => Thenable<unknown> };

/** The menu behind the status-bar item, and the commands it offers (each usable with an argument). */
export class UsageMenu {
  /** The quick input on screen (extension-host tests drive it). */
  active: vscode.InputBox | undefined;

  constructor(
    private readonly ledger: UsageLedger,
    private readonly settings: Pick<SettingsStore, 'setPlan'>,
  ) {}

  async show(): Promise<unknown> {
    const s = this.ledger.snapshot();
    const items: MenuItem[] = [
      {
        label: `$(account) ${vscode.l10n.t('Set plan…')}`,
        description: s.plan
          ? `${PLANS[s.plan].label}${s.planSource === 'inferred' ? ` (${vscode.l10n.t('inferred')})` : ''}`
          : vscode.l10n.t('unknown'),
        run: () => this.setPlan(),
      },
      {
        label: `$(edit) ${vscode.l10n.t('Correct the count…')}`,
        description:
          s.spent === 1
            ? vscode.l10n.t('1 call counted on this machine this month')
            : vscode.l10n.t('{0} calls counted on this machine this month', s.spent),
        detail: vscode.l10n.t('Type the number of calls used this month according to the account dashboard.'),
        run: () => this.correctCount(),
      },
      {
        label: `$(link-external) ${vscode.l10n.t('Open the account dashboard')}`,
        run: () => vscode.env.openExternal(vscode.Uri.parse(Urls.dashboard)),
      },
    ];
    if (s.pastDue || s.exhausted)
      items.push({
        label: `$(credit-card) ${vscode.l10n.t('Open Billing')}`,
        run: () => vscode.env.openExternal(vscode.Uri.parse(Urls.billing)),
      });
    const picked = await vscode.window.showQuickPick(items, { title: vscode.l10n.t('Research Desk: monthly calls') });
    return picked?.run();
  }

  /** Sets `researchDesk.plan` (user settings); with an argument, no prompt. */
  async setPlan(arg?: unknown): Promise<PlanSetting | undefined> {
    let plan: PlanSetting | undefined;
    if (arg !== undefined) {
      if (typeof arg !== 'string' || !(PLAN_SETTING_VALUES as readonly string[]).includes(arg)) {
        void showError(
          vscode.l10n.t('Unknown plan {0}: use one of {1}.', JSON.stringify(arg), PLAN_SETTING_VALUES.join(', ')),
        );
        return undefined;
      }
      plan = arg as PlanSetting;
    } else {
      const current = this.ledger.planSetting();
      const picked = await vscode.window.showQuickPick(
        PLAN_SETTING_VALUES.map((p) => ({
          label: p === 'auto' ? vscode.l10n.t('Automatic') : PLANS[p].label,
          description:
            p === 'auto'
              ? vscode.l10n.t('inferred from the page size the service applies')
              : vscode.l10n.t('{0} calls a month', PLANS[p].includedCalls),
          picked: p === current,
          value: p,
        })),
        { title: vscode.l10n.t('Set plan') },
      );
      plan = picked?.value;
    }
    if (plan) await this.settings.setPlan(plan);
    return plan;
  }

  /** Correct the count: the calls used this month according to the dashboard; with an argument, no prompt. */
  async correctCount(arg?: unknown): Promise<number | undefined> {
    if (arg !== undefined) {
      const problem = countProblem(typeof arg === 'number' ? String(arg) : typeof arg === 'string' ? arg : '?');
      if (problem) {
        void showError(problem);
        return undefined;
      }
      this.ledger.correct(Number(arg));
      return this.ledger.spent;
    }
    const ib = vscode.window.createInputBox();
    ib.title = vscode.l10n.t('Correct the count');
    ib.prompt = vscode.l10n.t(
      'Calls used this month according to the account dashboard (shared by every machine and the MCP server)',
    );
    ib.value = String(this.ledger.spent);
    ib.onDidChangeValue((v) => (ib.validationMessage = countProblem(v)));
    const value = await new Promise<string | undefined>((resolve) => {
      ib.onDidAccept(() => {
        const problem = countProblem(ib.value);
        ib.validationMessage = problem;
        if (!problem) resolve(ib.value);
      });
      ib.onDidHide(() => resolve(undefined));
      this.active = ib;
      ib.show();
    });
    ib.dispose();
    this.active = undefined;
    if (value === undefined) return undefined;
    this.ledger.correct(Number(value.trim()));
    return this.ledger.spent;
  }
}

function countProblem(text: string): string | undefined {
  const t = text.trim();
  if (!/^\d+$/.test(t) || !Number.isSafeInteger(Number(t)))
    return vscode.l10n.t('Type a whole number of calls, 0 or more (got "{0}").', t);
  return undefined;
}
