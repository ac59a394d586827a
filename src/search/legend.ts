/**
 * The legend of the Research view's icons: which study designs each icon stands for, in the labels the rows use. A
 * read-only Quick Pick (searchable, read by screen readers), run by the entry bundle without the core.
 */
import * as vscode from 'vscode';
import { STUDY_TYPE_LABELS } from '../shared/studyTypes';
import { studyTypeIcon } from './query';

/** Icons in the order the legend lists them (strongest designs first), with what the family is called. */
const FAMILIES: readonly [icon: string, family: string][] = [
  ['beaker', 'Randomized trials'],
  ['layers', 'Meta-analyses and systematic reviews'],
  ['organization', 'Observational studies'],
  ['microscope', 'Experiments, in vitro and animal studies'],
  ['person', 'Case reports and case studies'],
  ['comment-discussion', 'Qualitative and mixed-methods studies'],
  ['book', 'Reviews and commentaries'],
  ['symbol-function', 'Theoretical and modelling studies'],
  ['file-text', 'Other designs, or none given (the free plan gives none)'],
];

export function legendItems(): vscode.QuickPickItem[] {
  const byIcon = new Map<string, string[]>();
  for (const [value, label] of Object.entries(STUDY_TYPE_LABELS)) {
    const icon = studyTypeIcon(value);
    byIcon.set(icon, [...(byIcon.get(icon) ?? []), vscode.l10n.t(label)]);
  }
  return FAMILIES.map(([icon, family]) => ({
    label: `$(${icon}) ${vscode.l10n.t(family)}`,
    detail: (byIcon.get(icon) ?? []).join(', '),
  }));
}

export async function showIconLegend(): Promise<void> {
  await vscode.window.showQuickPick(legendItems(), {
    title: vscode.l10n.t('Research Desk: Study Design Icons'),
    placeHolder: vscode.l10n.t('What each icon in the Research view stands for'),
    matchOnDetail: true,
  });
}
