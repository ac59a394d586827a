/**
 * The core's command table, in one place: which feature answers each command the core runs.
 */
import { Commands, type CommandId } from '../platform/ids';
import type { AnswerPanels } from '../answer/answerPanel';
import type { AnswerCitations } from '../citations/insertAnswer';
import type { CitationCommands } from '../citations/citationCommands';
import type { CiteCompletion } from '../citations/completion';
import type { FilterCommands } from '../search/filterCommands';
import type { PaperCommands } from '../search/paperCommands';
import type { SearchCommands } from '../search/searchCommands';
import type { PaperExporter } from '../search/table/exportPapers';
import type { TablePanel } from '../search/table/tablePanel';
import type { ConnectionTester } from '../service/connection';
import type { EmulatorCommand } from '../service/emulator';
import type { KeyCommands } from '../service/keyCommands';
import type { ThreadCommands } from '../threads/threadCommands';
import type { ThreadsViewCommands } from '../threads/threadsViewCommands';
import type { UsageMenu } from '../usage/usageMenu';

export type Handlers = Partial<Record<CommandId, (...args: readonly unknown[]) => Promise<unknown>>>;

/** The core's features its table calls, and the command objects the core builds for the table alone. */
export interface CoreFeatures {
  readonly table: TablePanel;
  readonly exporter: PaperExporter;
  readonly filterCommands: FilterCommands;
  readonly usageMenu: UsageMenu;
  readonly threads: ThreadCommands;
  readonly citationCommands: CitationCommands;
  readonly answerCitations: AnswerCitations;
  readonly answers: AnswerPanels;
  readonly citeCompletion: CiteCompletion;
}

export interface TableParts {
  keyCommands: KeyCommands;
  tester: ConnectionTester;
  emulator: EmulatorCommand;
  search: SearchCommands;
  papers: PaperCommands;
  threadsView: ThreadsViewCommands;
}

/**
 * The core's command table: every command but the two the entry bundle runs itself (Show Log, Get a Key). The
 * contributions test checks it against package.json and platform/ids.ts.
 */
export function commandTable(
  core: CoreFeatures,
  { keyCommands, tester, emulator, search, papers, threadsView }: TableParts,
): Handlers {
  return {
    [Commands.setApiKey]: () => keyCommands.setApiKey(),
    [Commands.clearApiKey]: () => keyCommands.clearApiKey(),
    [Commands.testConnection]: () => tester.run(),
    [Commands.useEmulator]: () => emulator.run(),
    [Commands.searchPapers]: (arg) => search.searchPapers(arg),
    [Commands.searchSelection]: () => search.searchSelection(),
    [Commands.loadMore]: () => search.loadMore(),
    [Commands.refreshResults]: () => search.refresh(),
    [Commands.clearResults]: () => Promise.resolve(search.clear()),
    [Commands.openPaper]: (...args) => papers.openPaper(...args),
    [Commands.openDoi]: (...args) => papers.openDoi(...args),
    [Commands.copyDoi]: (...args) => papers.copyDoi(...args),
    [Commands.copyTitle]: (...args) => papers.copyTitle(...args),
    [Commands.showAbstract]: (...args) => papers.showAbstract(...args),
    [Commands.findSimilar]: (...args) => papers.findSimilar(...args),
    [Commands.showEvidenceTable]: (arg) => Promise.resolve(core.table.show(arg)),
    [Commands.exportPapers]: (...args) => core.exporter.run(...args),
    [Commands.editFilters]: (arg) => core.filterCommands.edit(arg),
    [Commands.clearFilters]: () => core.filterCommands.clear(),
    [Commands.applyFilterPreset]: (arg) => core.filterCommands.applyPreset(arg),
    [Commands.showUsage]: () => core.usageMenu.show(),
    [Commands.setPlan]: (arg) => core.usageMenu.setPlan(arg),
    [Commands.correctUsageCount]: (arg) => core.usageMenu.correctCount(arg),
    [Commands.askAgent]: (arg) => core.threads.askAgent(arg),
    [Commands.sendBrief]: (arg) => core.threads.sendBrief(arg),
    [Commands.askAboutSelection]: (arg) => core.threads.askAboutSelection(arg),
    [Commands.askAboutPapers]: (...args) => core.threads.askAboutPapers(...args),
    [Commands.refreshThreads]: () => threadsView.refresh(),
    [Commands.searchThreads]: (arg) => threadsView.search(arg),
    [Commands.loadMoreThreads]: () => threadsView.loadMore(),
    [Commands.openThread]: (arg) => threadsView.open(arg),
    [Commands.openThreadInBrowser]: (arg) => threadsView.openInBrowser(arg),
    [Commands.copyThreadLink]: (arg) => threadsView.copyLink(arg),
    [Commands.insertCitation]: (...args) => core.citationCommands.insertCitation(...args),
    [Commands.insertCitations]: (...args) => core.citationCommands.insertCitations(...args),
    [Commands.declareBibliography]: (arg) => core.citationCommands.declareBibliography(arg),
    [Commands.copyBibtex]: (...args) => core.citationCommands.copyBibtex(...args),
    [Commands.copyReference]: (...args) => core.citationCommands.copyReference(...args),
    [Commands.tidyBibliography]: (arg) => core.citationCommands.tidyBibliography(arg),
    [Commands.insertAnswer]: (arg) => core.answerCitations.insertAnswer(arg),
    [Commands.exportAnswer]: (arg) => core.answers.exportMarkdown(typeof arg === 'string' ? arg : undefined),
    [Commands.addToBibliography]: (arg) => core.citeCompletion.addToBibliography(arg),
  };
}
