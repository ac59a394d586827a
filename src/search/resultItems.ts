import * as vscode from 'vscode';
import type { Paper } from '../api/index';
import { Commands } from '../platform/ids';
import { paperDescription, paperLead, studyTypeIcon } from './query';
import { studyTypeLabel } from '../shared/studyTypes';
import { escapeMarkdown, markdownWithSafeLinks } from '../shared/markdown';
import { clip, oneLine, plainText } from '../shared/plainText';
import type { ResultsModel } from './resultsModel';

/**
 * The Research view's rows: tree items for the papers, their excerpts and the Load More node, and the tooltips. Not
 * in the entry bundle: the view has rows only once the core's search session has shown results, so this is loaded
 * (dist/deferred.js) after activation, not during it. Service text is untrusted: labels and descriptions are plain
 * text (`plainText`), tooltips are MarkdownStrings with trust and HTML off, every service string escaped and its only
 * links those the one link rule allows.
 */

export type ResultNode =
  | { kind: 'paper'; paper: Paper; index: number; generation: number }
  | {
      kind: 'excerpt';
      paper: Paper;
      paperIndex: number;
      index: number;
      section: string | undefined;
      passage: string;
      generation: number;
    }
  | { kind: 'more'; generation: number };

export const PAPER_CONTEXT = 'paper';
export const PAPER_WITH_DOI_CONTEXT = 'paperWithDoi';

export function resultTreeItem(node: ResultNode, model: ResultsModel | undefined): vscode.TreeItem {
  switch (node.kind) {
    case 'paper': {
      const p = node.paper;
      const title = plainText(p.title, 300) || vscode.l10n.t('(untitled paper)');
      // Who and when lead the row: at the sidebar's default width the description is cut away first. The design
      // ends the label, not the description: the view's filter (Ctrl+Alt+F) reads labels only, so "randomi" finds
      // the trials.
      const lead = plainText(paperLead(p), 80);
      const design = p.study_type ? vscode.l10n.t(studyTypeLabel(p.study_type)) : '';
      const item = new vscode.TreeItem(
        [lead, title, design].filter(Boolean).join(' · '),
        excerptsOf(p).length ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `${node.generation}/${node.index}`;
      item.description = plainText(p.journal_name, 300);
      item.iconPath = new vscode.ThemeIcon(studyTypeIcon(p.study_type));
      item.contextValue = p.doi ? PAPER_WITH_DOI_CONTEXT : PAPER_CONTEXT;
      item.accessibilityInformation = {
        label: [title, plainText(paperDescription(p), 300), design].filter(Boolean).join('. '),
      };
      return item;
    }
    case 'excerpt': {
      const item = new vscode.TreeItem(plainText(node.passage, 160), vscode.TreeItemCollapsibleState.None);
      item.id = `${node.generation}/${node.paperIndex}/${node.index}`;
      item.description = plainText(node.section, 200);
      const passage = plainText(node.passage, 4000);
      item.tooltip = node.section ? `${plainText(node.section, 200)}\n\n${passage}` : passage;
      item.iconPath = new vscode.ThemeIcon('quote');
      item.contextValue = 'excerpt';
      return item;
    }
    case 'more': {
      const item = new vscode.TreeItem(vscode.l10n.t('Load More Results'), vscode.TreeItemCollapsibleState.None);
      item.id = `${node.generation}/more`;
      const shown = model?.papers.length ?? 0;
      item.description = vscode.l10n.t('{0} shown', shown);
      item.iconPath = new vscode.ThemeIcon('fold-down');
      item.command = { command: Commands.loadMore, title: vscode.l10n.t('Load More Results') };
      item.contextValue = 'loadMore';
      return item;
    }
  }
}

/** A paper's tooltip, built when hovered (1,000 results cost nothing until then). */
export function resolveResultTreeItem(
  item: vscode.TreeItem,
  node: ResultNode,
  model: ResultsModel | undefined,
): vscode.TreeItem {
  if (node.kind === 'paper') item.tooltip = paperTooltip(node.paper, { openAccess: model?.openAccess === true });
  return item;
}

/** A paper's excerpts, as its children. */
export function excerptNodes(element: ResultNode): ResultNode[] {
  if (element.kind !== 'paper') return [];
  return excerptsOf(element.paper).map((e, index) => ({
    kind: 'excerpt',
    paper: element.paper,
    paperIndex: element.index,
    index,
    section: e.section,
    passage: e.passage,
    generation: element.generation,
  }));
}

function excerptsOf(p: Paper): { section: string | undefined; passage: string }[] {
  return (p.full_text_chunks ?? []).filter((c) => typeof c === 'string' && c.trim()).map(splitExcerpt);
}

/**
 * `Section: <heading> | <passage>`, split on the first pipe (the rule of src/api parseExcerpt, without loading the
 * client).
 */
export function splitExcerpt(chunk: string): { section: string | undefined; passage: string } {
  const bar = chunk.indexOf('|');
  if (bar < 0) return { section: undefined, passage: oneLine(chunk) };
  const head = chunk
    .slice(0, bar)
    .trim()
    .replace(/^section:\s*/i, '');
  return { section: oneLine(head) || undefined, passage: oneLine(chunk.slice(bar + 1)) };
}

/** The tooltip of a paper: only the fields present; every service string escaped. */
export function paperTooltip(p: Paper, options: { openAccess?: boolean } = {}): vscode.MarkdownString {
  const md = new vscode.MarkdownString('', false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.supportThemeIcons = false;
  // Service text is escaped here (appendText would also turn every space into &nbsp;), and a URL in it is a link
  // only when the one link rule allows it (VS Code's Markdown would make any https://… a link by itself).
  const text = (value: string): void => void md.appendMarkdown(markdownWithSafeLinks(value));
  const bold = (label: string): void => void md.appendMarkdown(`**${escapeMarkdown(label)}**`);
  md.appendMarkdown(`**${markdownWithSafeLinks(oneLine(p.title) || vscode.l10n.t('(untitled paper)'))}**`);
  md.appendMarkdown('\n\n');
  // Who, when and where first, as a reference reads; then the takeaway (or the abstract's start).
  const authors = (p.authors ?? []).map(oneLine).filter(Boolean);
  const cite = [
    authors.length ? clip(listSome(authors, 6, ', '), 400) : '',
    isNum(p.publish_year) ? `(${p.publish_year})` : '',
    p.journal_name?.trim() ? clip(oneLine(p.journal_name), 200) : '',
  ].filter(Boolean);
  if (cite.length) {
    text(cite.join(' '));
    md.appendMarkdown('\n\n');
  }
  const summary = p.takeaway?.trim() ? p.takeaway : p.abstract;
  if (summary?.trim()) {
    md.appendMarkdown(
      `*${escapeMarkdown(p.takeaway?.trim() ? vscode.l10n.t('Takeaway') : vscode.l10n.t('Abstract'))}:* `,
    );
    text(clip(oneLine(summary), 700));
    md.appendMarkdown('\n\n');
  }
  const marks: string[] = [];
  if (p.study_type) marks.push(vscode.l10n.t(studyTypeLabel(p.study_type)));
  if (p.is_preprint === true) marks.push(vscode.l10n.t('Preprint (not peer reviewed)'));
  if (options.openAccess) marks.push(vscode.l10n.t('Open access'));
  const rows: [string, string][] = [];
  if (p.doi?.trim()) rows.push([vscode.l10n.t('DOI'), oneLine(p.doi)]);
  if (marks.length) rows.push([vscode.l10n.t('Type'), marks.join(' · ')]);
  if (isNum(p.citation_count))
    rows.push([
      vscode.l10n.t('Citations'),
      isNum(p.influential_citation_count)
        ? vscode.l10n.t('{0} ({1} influential)', p.citation_count, p.influential_citation_count)
        : String(p.citation_count),
    ]);
  if (isNum(p.sjr_best_quartile)) rows.push([vscode.l10n.t('Journal quartile'), `Q${p.sjr_best_quartile}`]);
  if (isNum(p.sample_size)) rows.push([vscode.l10n.t('Sample size'), String(p.sample_size)]);
  if (isNum(p.study_count)) rows.push([vscode.l10n.t('Studies synthesized'), String(p.study_count)]);
  if (p.population_type) rows.push([vscode.l10n.t('Population'), p.population_type]);
  if (p.countries_of_study?.length) rows.push([vscode.l10n.t('Countries'), p.countries_of_study.join(', ')]);
  if (isNum(p.study_duration_days)) rows.push([vscode.l10n.t('Duration'), formatDuration(p.study_duration_days)]);
  if (p.institutions?.length) rows.push([vscode.l10n.t('Institutions'), listSome(p.institutions, 3)]);
  if (p.publisher_name) rows.push([vscode.l10n.t('Publisher'), p.publisher_name]);
  if (isNum(p.semantic_score)) rows.push([vscode.l10n.t('Semantic score'), p.semantic_score.toFixed(3)]);
  for (const [label, value] of rows) {
    md.appendMarkdown('- ');
    bold(label);
    text(`: ${clip(oneLine(value), 300)}`);
    md.appendMarkdown('\n');
  }
  return md;
}

function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function formatDuration(days: number): string {
  if (days >= 730) return vscode.l10n.t('{0} days (about {1} years)', days, Math.round(days / 365));
  if (days >= 60) return vscode.l10n.t('{0} days (about {1} months)', days, Math.round(days / 30.4));
  return vscode.l10n.t('{0} days', days);
}

function listSome(items: readonly string[], n: number, separator = '; '): string {
  const head = items.slice(0, n).join(separator);
  return items.length > n ? vscode.l10n.t('{0} and {1} more', head, items.length - n) : head;
}
