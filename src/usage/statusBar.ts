import * as vscode from 'vscode';
import { PLANS } from '../api';
import { Disposable } from '../shared/disposable';
import { type CachedUsageStatus } from './statusCache';
import type { UsageLedger, UsageSnapshot } from './usageLedger';
import { StatusItems, StorageKeys } from '../platform/ids';

/** Escapes text for a MarkdownString (the origin comes from a setting; nothing is trusted). */
const md = (s: string): string => s.replace(/[\\`*_{}[\]#|<>~!]/g, '\\$&');

function searchesText(s: UsageSnapshot): string {
  const n = s.searches === 1 ? vscode.l10n.t('1 search') : vscode.l10n.t('{0} searches', s.searches);
  return s.correctedTo === undefined
    ? n
    : vscode.l10n.t('{0} as corrected from the dashboard, then {1}', s.correctedTo, n);
}

/** Status-bar text for a snapshot: "$(pulse) 412 / 500", "$(pulse) 12 used" when the plan is unknown. */
export function usageText(s: UsageSnapshot): string {
  if (s.pastDue) return `$(error) ${vscode.l10n.t('Billing past due')}`;
  if (s.exhausted)
    return `$(pulse) ${s.included !== undefined && Number.isFinite(s.included) ? `0 / ${s.included}` : vscode.l10n.t('0 left')}`;
  if (s.left !== undefined && s.included !== undefined && Number.isFinite(s.included))
    return `$(pulse) ${s.left} / ${s.included}`;
  return `$(pulse) ${vscode.l10n.t('{0} used', s.spent)}`;
}

/** The tooltip: plan, this machine's calls, reset date, and why the figure is an estimate. */
export function usageTooltip(s: UsageSnapshot): vscode.MarkdownString {
  const t = new vscode.MarkdownString('', false);
  t.isTrusted = false;
  t.supportHtml = false;
  const plan =
    s.plan === undefined
      ? vscode.l10n.t('unknown (set it from this menu, or it is inferred from the page size the service applies)')
      : s.planSource === 'inferred' && s.inferredFrom === 'fields'
        ? vscode.l10n.t(
            'a paid plan: Pro, Teams or Enterprise, 500 calls a month (seen in the service’s answers; choose Deep in this menu if that is yours)',
          )
        : s.planSource === 'inferred'
          ? vscode.l10n.t('{0} (inferred from the page size the service applied)', PLANS[s.plan].label)
          : PLANS[s.plan].label;
  const lines = [
    `**${md(vscode.l10n.t('Research Desk: monthly calls'))}**`,
    '',
    `${md(vscode.l10n.t('Plan'))}: ${md(plan)}`,
    `${md(vscode.l10n.t('Calls this machine spent this month'))}: ${s.spent} (${md(searchesText(s))})`,
  ];
  if (s.left !== undefined && s.included !== undefined && Number.isFinite(s.included))
    lines.push(`${md(vscode.l10n.t('Estimated calls left'))}: ${s.left} / ${s.included}`);
  if (s.exhausted)
    lines.push(
      '',
      `$(warning) ${md(vscode.l10n.t('The service says all included calls of this month are used; they reset on {0}.', s.resetDate))}`,
    );
  else lines.push(`${md(vscode.l10n.t('Resets on'))}: ${md(s.resetDate)}`);
  if (s.pastDue)
    lines.push(
      '',
      `$(error) ${md(vscode.l10n.t('Billing is past due: calls pause until payment is resolved in the dashboard.'))}`,
    );
  lines.push(
    '',
    md(
      vscode.l10n.t(
        'The monthly pool is shared with the MCP server and your other machines, so this figure is an estimate; thread (agent) costs are not known exactly and are not counted. Click to set the plan or correct the count.',
      ),
    ),
    '',
    `${md(vscode.l10n.t('Service'))}: \`${s.origin.replace(/`/g, "'")}\``,
  );
  t.supportThemeIcons = true;
  t.appendMarkdown(lines.join('  \n'));
  return t;
}

/** The status-bar item of the monthly calls; clicking opens the usage menu. */
export class UsageStatusBar extends Disposable {
  readonly item: vscode.StatusBarItem;

  /**
   * @param existing the item restored at start from the cache (taken over, not duplicated)
   * @param cache where the shown status is kept for the next start (context.globalState)
   */
  constructor(
    private readonly ledger: UsageLedger,
    command: string,
    existing?: vscode.StatusBarItem,
    private readonly cache?: vscode.Memento,
  ) {
    super();
    this.item = this.register(
      existing ?? vscode.window.createStatusBarItem(StatusItems.usage, vscode.StatusBarAlignment.Right, 100),
    );
    this.item.name = vscode.l10n.t('Research Desk: monthly calls');
    this.item.command = command;
    this.register(ledger.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  update(): void {
    const s = this.ledger.snapshot();
    this.item.text = usageText(s);
    this.item.tooltip = usageTooltip(s);
    this.item.backgroundColor = s.pastDue
      ? new vscode.ThemeColor('statusBarItem.errorBackground')
      : s.exhausted
        ? new vscode.ThemeColor('statusBarItem.warningBackground')
        : undefined;
    if (this.cache) {
      const bgId = this.item.backgroundColor instanceof vscode.ThemeColor ? this.item.backgroundColor.id : undefined;
      const cached: CachedUsageStatus = {
        month: s.month,
        origin: s.origin,
        text: this.item.text,
        tooltip: usageTooltip(s).value,
        background: bgId,
        textAfterReset:
          s.included !== undefined && Number.isFinite(s.included) && !s.pastDue
            ? `$(pulse) ${s.included} / ${s.included}`
            : undefined,
      };
      void this.cache.update(StorageKeys.usageStatus, cached);
    }
    this.item.accessibilityInformation = {
      label: s.pastDue
        ? vscode.l10n.t('Research Desk: billing past due')
        : s.left !== undefined && s.included !== undefined
          ? vscode.l10n.t('Research Desk: about {0} of {1} monthly calls left', s.left, s.included)
          : vscode.l10n.t('Research Desk: {0} calls used this month', s.spent),
    };
  }
}
