/**
 * The language model tools, in the core bundle (the entry bundle's adapter, toolProviders.ts, hands each
 * invocation here): searching papers with every filter of the service, and the calls left this month. A search
 * is a paid call, so its confirmation says so before it runs; the papers found join the recent papers, so the
 * writer can cite them from the Quick Pick or completion afterwards.
 */
import * as vscode from 'vscode';
import type { Paper, SearchParams } from '../api/index';
import { baseKey } from '../bib/keys';
import { citePaperOf, type RecentPapersList } from '../citations/recentPapers';
import { Tools, type ToolName } from '../platform/ids';
import { citationSettings } from '../platform/settings';
import type { FetchedPage } from '../search/searchPages';
import { describeFilters } from '../search/filterModel';
import { markdownWithSafeLinks } from '../shared/markdown';
import { plainText } from '../shared/plainText';
import type { UsageSnapshot } from '../usage/usageLedger';
import { paperRecords, parseSearchToolInput } from './toolInput';

export interface ResearchToolsDeps {
  /** One search, through the session's cache and ledger (a cached answer costs nothing). */
  search(params: SearchParams): Promise<FetchedPage>;
  usage(): UsageSnapshot;
  recent: RecentPapersList;
  /** The sentence a failure shows the writer (the error presenter's), without a notification. */
  describeError(err: unknown): string;
}

export class ResearchTools {
  constructor(private readonly deps: ResearchToolsDeps) {}

  /** What VS Code shows before a tool runs: the invocation message, and for a paid call the confirmation. */
  prepare(name: ToolName, input: unknown): vscode.PreparedToolInvocation {
    if (name === Tools.monthlyCalls) return { invocationMessage: vscode.l10n.t('Reading the calls left this month') };
    const parsed = parseSearchToolInput(input);
    // An invalid input is refused by invoke without a call; there is nothing to confirm.
    if (!parsed.ok) return { invocationMessage: vscode.l10n.t('Checking the search input') };
    const query = plainText(parsed.params.query, 120);
    const filters = describeFilters(parsed.params);
    const left = this.deps.usage().left;
    const cost =
      left === undefined
        ? vscode.l10n.t('It uses one call of your monthly pool, unless the same search was answered this session.')
        : vscode.l10n.t(
            'It uses one call of your monthly pool ({0} left), unless the same search was answered this session.',
            left,
          );
    return {
      invocationMessage: vscode.l10n.t('Searching papers for “{0}”', query),
      confirmationMessages: {
        title: vscode.l10n.t('Search papers?'),
        // Escaped, a URL in the query a link only by the link rule: the query is the model's text.
        message: new vscode.MarkdownString(
          markdownWithSafeLinks(
            [
              vscode.l10n.t('Search for “{0}”, up to {1} papers.', query, parsed.params.page_size ?? 10),
              filters ? vscode.l10n.t('Filters: {0}.', plainText(filters, 300)) : '',
              cost,
            ]
              .filter(Boolean)
              .join(' '),
          ),
        ),
      },
    };
  }

  async invoke(
    name: ToolName,
    input: unknown,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    if (name === Tools.monthlyCalls) return text(JSON.stringify(this.monthlyCalls()));
    const parsed = parseSearchToolInput(input);
    // Thrown, so the model sees the message and can correct its input; nothing was sent.
    if (!parsed.ok) throw new Error(parsed.message);
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    let page: FetchedPage;
    try {
      page = await this.deps.search(parsed.params);
    } catch (err) {
      throw new Error(this.deps.describeError(err), { cause: err });
    }
    const papers: Paper[] = page.response.results.slice(0, parsed.params.page_size ?? 10);
    this.deps.recent.remember(papers.map(citePaperOf));
    const scheme = citationSettings(vscode.window.activeTextEditor?.document.uri).keyScheme;
    const records = paperRecords(papers, (p) => baseKey(citePaperOf(p), scheme));
    const result = {
      query: parsed.params.query,
      morePapers: page.response.is_end === false,
      callCharged: page.sent,
      papers: records,
    };
    return text(JSON.stringify(result));
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
}

const text = (value: string): vscode.LanguageModelToolResult =>
  new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
