/**
 * The language model tools, in the core bundle (the entry bundle's adapter, chatProviders.ts, hands each invocation
 * here): search papers with every filter of the service, read a paper's details, cite papers in the writer's
 * document, the calls left this month, and the research agent's tools (agentTools.ts). A tool that spends a call or
 * changes the writer's files says so in its confirmation before it runs; an input bound to fail is refused before
 * anything is sent. The papers found join the recent papers, so the writer can cite them from the Quick Pick or
 * completion afterwards, and the chat's own list (SeenPapers), so a model can name them by id, cite key or DOI.
 */
import * as vscode from 'vscode';
import type { Paper, SearchParams } from '../api/index';
import { baseKey } from '../bib/keys';
import type { CitationCommandResult } from '../citations/commandSupport';
import { citePaperOf, type RecentPapersList } from '../citations/recentPapers';
import type { CitePaper } from '../citations/types';
import { Tools, type ToolName } from '../platform/ids';
import { citationSettings } from '../platform/settings';
import { describeFilters } from '../search/filterModel';
import type { FetchedPage } from '../search/searchPages';
import { markdownWithSafeLinks } from '../shared/markdown';
import { plainText } from '../shared/plainText';
import { AgentTools, type AgentToolsDeps } from './agentTools';
import type { AnswerRecord } from './threadToolInput';
import { SeenPapers } from './seenPapers';
import { paperDetails, paperRecords, parsePaperRefs, parseSearchToolInput, type PaperRecord } from './toolInput';

export interface ResearchToolsDeps extends AgentToolsDeps {
  /** One search, through the session's cache and ledger (a cached answer costs nothing). */
  search(params: SearchParams): Promise<FetchedPage>;
  recent: RecentPapersList;
  /** The papers the Research view shows (a model may name one the writer found there). */
  shownPapers(): readonly Paper[];
  /** Insert Citation with the given papers: the citation at the cursor and the entries, one edit. */
  insertCitation(papers: CitePaper[]): Promise<CitationCommandResult>;
  /** The document Insert Citation would cite into, if any. */
  citeTarget(): Promise<vscode.TextDocument | undefined>;
}

/** What a search tool returned, as the model reads it. */
export interface SearchToolResult {
  query: string;
  morePapers: boolean;
  callCharged: boolean;
  papers: PaperRecord[];
}

/** A tool's answer: JSON text, one part. */
export const toolText = (value: unknown): vscode.LanguageModelToolResult =>
  new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify(value))]);

/** The confirmation's Markdown: each part is escaped, a URL in it a link only by the link rule (the text is a model's). */
export const confirmation = (title: string, parts: string[]): vscode.LanguageModelToolConfirmationMessages => ({
  title,
  message: new vscode.MarkdownString(markdownWithSafeLinks(parts.filter(Boolean).join(' '))),
});

export class ResearchTools {
  /** Papers the tools returned this session, in full. */
  readonly seen = new SeenPapers();
  /** The research agent's tools (the chat participant's /ask uses them too). */
  readonly agent: AgentTools;

  constructor(private readonly deps: ResearchToolsDeps) {
    this.agent = new AgentTools(deps, {
      citeKeyOf: (c) => this.citeKeyOf(c),
      // A paper known from a search keeps its full record; one known only from the answer gets its fields.
      cited: (papers) => deps.recent.remember(papers.map((p) => deps.recent.byId(p.id ?? '') ?? citePaperOfCited(p))),
    });
  }

  /** What VS Code shows before a tool runs: the invocation message, and for a paid call or an edit the confirmation. */
  prepare(name: ToolName, input: unknown): vscode.PreparedToolInvocation {
    switch (name) {
      case Tools.monthlyCalls:
        return { invocationMessage: vscode.l10n.t('Reading the calls left this month') };
      case Tools.searchPapers:
        return this.prepareSearch(input);
      case Tools.paperDetails:
        return { invocationMessage: vscode.l10n.t('Reading paper details') };
      case Tools.insertCitations:
        return this.prepareInsert(input);
      default:
        return this.agent.prepare(name, input);
    }
  }

  async invoke(
    name: ToolName,
    input: unknown,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    switch (name) {
      case Tools.monthlyCalls:
        return toolText(this.monthlyCalls());
      case Tools.searchPapers:
        return toolText(await this.search(input, token));
      case Tools.paperDetails:
        return toolText(this.details(input));
      case Tools.insertCitations:
        return toolText(await this.insert(input, token));
      default:
        return toolText(await this.agent.invoke(name, input, token));
    }
  }

  /**
   * A search as the tool runs it (also the chat participant's /search): checked, sent once through the session
   * (cache and ledger), its papers remembered. Throws a sentence the model or the writer can act on.
   */
  async search(input: unknown, token?: vscode.CancellationToken): Promise<SearchToolResult & { found: Paper[] }> {
    const parsed = parseSearchToolInput(input);
    // Thrown, so the model sees the message and can correct its input; nothing was sent.
    if (!parsed.ok) throw new Error(parsed.message);
    if (parsed.params.include_full_text_chunks && this.deps.isFreePlan())
      throw new Error(
        vscode.l10n.t('Excerpts need a paid plan, and this key is on the free plan; search without "excerpts".'),
      );
    if (token?.isCancellationRequested) throw new vscode.CancellationError();
    let page: FetchedPage;
    try {
      page = await this.deps.search(parsed.params);
    } catch (err) {
      throw new Error(this.deps.describeError(err), { cause: err });
    }
    const found: Paper[] = page.response.results.slice(0, parsed.params.page_size ?? 10);
    this.deps.recent.remember(found.map(citePaperOf));
    const keyOf = this.keyScheme();
    const papers = paperRecords(found, keyOf);
    this.seen.remember(found.map((paper, i) => ({ paper, citeKey: papers[i]!.citeKey })));
    return {
      query: parsed.params.query,
      morePapers: page.response.is_end === false,
      callCharged: page.sent,
      papers,
      found,
    };
  }

  /** The papers named by id, cite key or DOI: this session's, found by the tools, the Research view or an answer. */
  resolve(refs: readonly string[]): { papers: { ref: string; paper: Paper | CitePaper }[]; unknown: string[] } {
    const papers: { ref: string; paper: Paper | CitePaper }[] = [];
    const unknown: string[] = [];
    for (const ref of refs) {
      const paper =
        this.seen.find(ref) ??
        this.deps.shownPapers().find((p) => citePaperOf(p).id === ref || (p.doi && p.doi === ref)) ??
        this.deps.recent.byId(ref);
      if (paper) papers.push({ ref, paper });
      else unknown.push(ref);
    }
    return { papers, unknown };
  }

  private prepareSearch(input: unknown): vscode.PreparedToolInvocation {
    const parsed = parseSearchToolInput(input);
    // An invalid input is refused by invoke without a call; there is nothing to confirm.
    if (!parsed.ok) return { invocationMessage: vscode.l10n.t('Checking the search input') };
    const query = plainText(parsed.params.query, 120);
    const filters = describeFilters(parsed.params);
    return {
      invocationMessage: vscode.l10n.t('Searching papers for “{0}”', query),
      confirmationMessages: confirmation(vscode.l10n.t('Search papers?'), [
        vscode.l10n.t('Search for “{0}”, up to {1} papers.', query, parsed.params.page_size ?? 10),
        filters ? vscode.l10n.t('Filters: {0}.', plainText(filters, 300)) : '',
        this.costNote(),
      ]),
    };
  }

  /** What a search costs, with the calls left when known. */
  private costNote(): string {
    const left = this.deps.usage().left;
    return left === undefined
      ? vscode.l10n.t('It uses one call of your monthly pool, unless the same search was answered this session.')
      : vscode.l10n.t(
          'It uses one call of your monthly pool ({0} left), unless the same search was answered this session.',
          left,
        );
  }

  private details(input: unknown): { papers: ReturnType<typeof paperDetails>[]; notFound?: string[] } {
    const parsed = parsePaperRefs(input);
    if (!parsed.ok) throw new Error(parsed.message);
    const { papers, unknown } = this.resolve(parsed.refs);
    if (!papers.length) throw new Error(notFoundMessage(unknown));
    const keyOf = this.keyScheme();
    // A paper known only from an answer's citation has fewer fields, under the same names as a search result's.
    const out = papers.map(({ paper }, i) => paperDetails(paper as Paper, i + 1, keyOf(paper)));
    return unknown.length ? { papers: out, notFound: unknown } : { papers: out };
  }

  private prepareInsert(input: unknown): vscode.PreparedToolInvocation {
    const parsed = parsePaperRefs(input);
    if (!parsed.ok) return { invocationMessage: vscode.l10n.t('Checking the papers to cite') };
    const { papers } = this.resolve(parsed.refs);
    const titles = papers.slice(0, 5).map(({ paper }) => `“${plainText(paper.title, 80)}”`);
    const more = papers.length > 5 ? vscode.l10n.t('and {0} more', papers.length - 5) : '';
    return {
      invocationMessage: vscode.l10n.t('Citing {0} paper(s) in your document', papers.length),
      confirmationMessages: confirmation(vscode.l10n.t('Insert citations?'), [
        vscode.l10n.t(
          'Cite {0} at the cursor of the document you are writing, and add their entries to its bibliography (one Undo removes the citation).',
          [...titles, more].filter(Boolean).join(', '),
        ),
        vscode.l10n.t('It costs no call.'),
      ]),
    };
  }

  private async insert(
    input: unknown,
    token: vscode.CancellationToken,
  ): Promise<{ cited: string[]; document?: string; bibliography?: string; entriesAdded: number; notFound?: string[] }> {
    const parsed = parsePaperRefs(input);
    if (!parsed.ok) throw new Error(parsed.message);
    const { papers, unknown } = this.resolve(parsed.refs);
    if (unknown.length) throw new Error(notFoundMessage(unknown));
    const target = await this.deps.citeTarget();
    if (!target)
      throw new Error(
        vscode.l10n.t('No document is open to cite into: the writer should open it (a text editor) first.'),
      );
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    const result = await this.deps.insertCitation(
      papers.map(({ paper }) => ('citation_count' in paper ? citePaperOf(paper) : paper)),
    );
    if (!result.done) throw new Error(result.message ?? vscode.l10n.t('Nothing was cited.'));
    return {
      cited: result.keys ?? [],
      document: vscode.workspace.asRelativePath(target.uri),
      bibliography: result.bib ? vscode.workspace.asRelativePath(result.bib) : undefined,
      entriesAdded: result.added ?? 0,
    };
  }

  private monthlyCalls(): Record<string, unknown> {
    const s = this.deps.usage();
    return {
      plan: s.plan ?? 'unknown',
      planSource: s.planSource,
      spentThisMonthOnThisMachine: s.spent,
      left: s.left ?? 'unknown',
      exhausted: s.exhausted,
      resetDate: s.resetDate,
      note: 'The pool is shared with the MCP server and other machines: the figures are this machine’s estimate.',
    };
  }

  /** The cite key the writer's key scheme gives a paper (for the document Insert Citation would cite into). */
  private keyScheme(): (p: Paper | CitePaper) => string {
    const scheme = citationSettings(vscode.window.activeTextEditor?.document.uri).keyScheme;
    return (p) => baseKey('citation_count' in p ? citePaperOf(p) : p, scheme);
  }

  /** The cite key of an answer's cited paper, when the session knows the paper. */
  private citeKeyOf(c: { paper_id?: string | null }): string | undefined {
    if (!c.paper_id) return undefined;
    const known = this.seen.find(c.paper_id) ?? this.deps.recent.byId(c.paper_id);
    return known ? this.keyScheme()(known) : undefined;
  }
}

/** A paper an answer cites, as Insert Citation takes it: the citation's own fields (title, year, journal, link). */
export function citePaperOfCited(p: NonNullable<AnswerRecord['papers']>[number]): CitePaper {
  const paper: CitePaper = {
    title: p.title,
    publish_year: p.year ?? null,
    journal_name: p.journal ?? null,
    url: p.url ?? null,
  };
  if (p.id) paper.id = p.id;
  return paper;
}

function notFoundMessage(unknown: readonly string[]): string {
  return vscode.l10n.t(
    'Not among the papers found this session: {0}. Use the id, citeKey or doi of a paper a search returned (search first).',
    unknown.map((r) => plainText(r, 80)).join(', '),
  );
}
