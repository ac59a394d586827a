/**
 * Export Papers: papers of the results as a BibTeX, RIS or CSL-JSON file (src/bib/exportPapers.ts writes them) the
 * writer saves where they choose. One path for the results view (its selected papers, or every paper shown) and the
 * evidence table (its selected rows). Written whole to a temporary file beside the target, then renamed over it, so
 * a failure leaves the old file or none, never half an export.
 */
import * as vscode from 'vscode';
import type { Paper } from '../../api/index';
import { EXPORT_EXTENSIONS, EXPORT_FORMATS, exportPapers, type ExportFormat } from '../../bib/exportPapers';
import { citationSettings } from '../../platform/settings';
import { showInfo, statusMessage } from '../../platform/notify';
import { writeWhole } from '../../platform/writeWhole';
import type { ResultNode } from '../resultsTree';
import { studyTypeLabel } from '../../shared/studyTypes';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

export interface ExportOutcome {
  done: boolean;
  uri?: vscode.Uri;
  format?: ExportFormat;
  count?: number;
  message?: string;
}

/** What the command takes besides result nodes: a format and a target (keybindings, other extensions, tests). */
interface ExportArg {
  format?: unknown;
  target?: unknown;
}

export interface PaperExporterDeps {
  /** The papers the results view shows now, and the query they answer. */
  shown: () => { papers: readonly Paper[]; query: string } | undefined;
  /** The papers selected in the results view. */
  selected: () => Paper[];
}

const isNode = (v: unknown): v is Extract<ResultNode, { paper: Paper }> =>
  typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'paper' || v.kind === 'excerpt') && 'paper' in v;

export class PaperExporter {
  constructor(private readonly deps: PaperExporterDeps) {}

  /**
   * The command: the clicked paper with the selection (a results-view context menu), else the selected papers, else
   * every paper shown. An argument `{ format, target }` skips the questions.
   */
  async run(...args: unknown[]): Promise<ExportOutcome> {
    const [first, second] = args;
    let papers: Paper[];
    if (isNode(first)) {
      const selected = Array.isArray(second) ? second.filter(isNode).map((n) => n.paper) : [];
      papers = selected.includes(first.paper) ? [...new Set(selected)] : [first.paper];
    } else {
      const selected = this.deps.selected();
      papers = selected.length ? [...new Set(selected)] : [...(this.deps.shown()?.papers ?? [])];
    }
    const arg = (isNode(first) ? undefined : first) as ExportArg | undefined;
    const format = EXPORT_FORMATS.find((f) => f === arg?.format);
    const target =
      arg?.target instanceof vscode.Uri
        ? arg.target
        : typeof arg?.target === 'string'
          ? vscode.Uri.parse(arg.target, true)
          : undefined;
    return this.export(papers, { format, target });
  }

  /** Exports `papers`, asking for the format (unless given) and where to save (unless `target`). */
  async export(
    papers: readonly Paper[],
    o: { format?: ExportFormat; target?: vscode.Uri } = {},
  ): Promise<ExportOutcome> {
    if (!papers.length) {
      const message = t('Search papers first: Export Papers writes the papers of the results.');
      void showInfo(message);
      return { done: false, message };
    }
    const format = o.format ?? (await this.pickFormat(papers.length));
    if (!format) return { done: false, message: 'cancelled' };
    const uri = o.target ?? (await this.pickTarget(format));
    if (!uri) return { done: false, message: 'cancelled' };
    const settings = citationSettings(uri);
    const text = exportPapers(papers, format, {
      keyScheme: settings.keyScheme,
      protectTitle: settings.titleProtection,
      studyTypeLabel: (s) => vscode.l10n.t(studyTypeLabel(s)),
    });
    await writeWhole(uri, text);
    const where = vscode.workspace.asRelativePath(uri);
    const message =
      papers.length === 1
        ? t('Exported 1 paper to {0}.', where)
        : t('Exported {0} papers to {1}.', papers.length, where);
    void statusMessage(message, 6000);
    return { done: true, uri, format, count: papers.length, message };
  }

  private async pickFormat(count: number): Promise<ExportFormat | undefined> {
    type Item = vscode.QuickPickItem & { format: ExportFormat };
    const items: Item[] = [
      {
        format: 'bibtex',
        label: t('BibTeX (.bib)'),
        description: t('LaTeX, pandoc, Quarto, Typst; Zotero, Mendeley and EndNote import it'),
      },
      {
        format: 'ris',
        label: t('RIS (.ris)'),
        description: t('Zotero, Mendeley, EndNote and screening tools import it'),
      },
      {
        format: 'csl-json',
        label: t('CSL-JSON (.json)'),
        description: t('Zotero and Mendeley import it; pandoc and Quarto read it'),
      },
    ];
    const pick = await vscode.window.showQuickPick(items, {
      title: count === 1 ? t('Export 1 paper as') : t('Export {0} papers as', count),
      ignoreFocusOut: true,
    });
    return pick?.format;
  }

  private async pickTarget(format: ExportFormat): Promise<vscode.Uri | undefined> {
    const ext = EXPORT_EXTENSIONS[format];
    const query = this.deps.shown()?.query ?? '';
    const slug = query
      .replace(/[^\p{L}\p{N} _-]+/gu, '')
      .trim()
      .replace(/\s+/gu, '-');
    // At most 60 characters, cut between words.
    const base = (slug.length <= 60 ? slug : slug.slice(0, 61).replace(/-[^-]*$/u, '')) || 'papers';
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const names: Record<ExportFormat, string> = { bibtex: 'BibTeX', ris: 'RIS', 'csl-json': 'CSL-JSON' };
    return vscode.window.showSaveDialog({
      defaultUri: folder ? vscode.Uri.joinPath(folder, `${base}.${ext}`) : undefined,
      filters: { [names[format]]: [ext] },
      saveLabel: t('Export'),
      title: t('Export Papers'),
    });
  }
}
