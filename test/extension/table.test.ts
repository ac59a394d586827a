/**
 * The evidence table in a real VS Code on the emulator's results: the page (nonce CSP, one external script, no rows
 * in the HTML), the webview really painting the rows it is sent and following a search and Load More, sorting by a
 * command argument (reported back by the page, kept for the next table), messages validated on the host (ids of other
 * results refused), selected rows given to Insert Citation, Copy BibTeX and Ask about Selected Papers (the commands
 * themselves, with these papers), and Export Papers from the table and from the results view writing files whose
 * contents parse.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Paper } from '../../src/api/index';
import type { CslItem } from '../../src/bib/cslJson';
import { RIS_LINE } from '../../src/bib/ris';
import { Commands } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import type { ExportOutcome } from '../../src/search/table/exportPapers';
import type { TableMessage } from '../../src/search/table/protocol';
import type { TablePanel } from '../../src/search/table/tablePanel';
import {
  acceptQuickInput,
  api,
  eventually,
  openDoc,
  provisionedKey,
  readDisk,
  testCore,
  useEmulatorKeepingKey,
  workspaceDir,
  writeFile,
} from './support';

const QUERY = 'effect of formative feedback on mathematics performance in secondary school students';

async function table(): Promise<TablePanel> {
  return (await testCore()).table;
}

/** The latest report of this type the page sent, after `since` (Date.now()). */
function lastReport<T extends TableMessage['type']>(
  t: TablePanel,
  type: T,
  since: number,
): Extract<TableMessage, { type: T }> | undefined {
  const r = [...t.reports].reverse().find((x) => x.message.type === type && x.at >= since);
  return r?.message as Extract<TableMessage, { type: T }> | undefined;
}

/** The generation of the results the table shows now. */
async function generation(): Promise<number> {
  return (await api()).results.current!.generation;
}

async function shownPapers(): Promise<readonly Paper[]> {
  return (await api()).results.current?.papers ?? [];
}

export function tableSuite(): void {
  suite('Evidence table', function () {
    this.timeout(120_000);
    let restore: (() => Promise<void>) | undefined;

    suiteSetup(async () => {
      restore = (await useEmulatorKeepingKey()).restore;
      await provisionedKey('table', 'pro');
    });
    suiteTeardown(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand(Commands.clearResults);
      await restore?.();
    });

    test('opens on the emulator’s results: a nonce CSP page with one script, the webview paints the 20 rows, then 40 after Load More', async () => {
      const outcome = await vscode.commands.executeCommand<SearchOutcome>(Commands.searchPapers, QUERY);
      assert.equal(outcome.outcome, 'shown');
      assert.equal(outcome.shown, 20);
      const t = await table();
      const since = Date.now();
      await vscode.commands.executeCommand(Commands.showEvidenceTable);
      await eventually(() => lastReport(t, 'shown', since)?.rows === 20, 'the page to paint 20 rows', 300);
      assert.equal(lastReport(t, 'shown', since)?.generation, await generation());
      const page = t.inspect()!;
      const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page.html)?.[1] ?? '';
      assert.match(csp, /^default-src 'none'; /);
      assert.ok(!/'unsafe-|(^|\s)(\*|https:|data:|http:)(\s|;|$)/.test(csp), csp);
      const nonce = /script-src 'nonce-([A-Za-z0-9]+)'/.exec(csp)?.[1] ?? '';
      assert.ok(nonce.length >= 16, 'a long nonce');
      const scripts = [...page.html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/gi)];
      assert.equal(scripts.length, 1);
      assert.match(scripts[0]![0], new RegExp(`^<script nonce="${nonce}" src="[^"]+/dist/table\\.js"></script>$`));
      assert.ok(!/<style\b|\sstyle=|\son[a-z]+=/i.test(page.html), 'no inline style or handler');
      assert.ok(
        !page.html.includes((await shownPapers())[0]!.title!),
        'no paper text in the HTML: rows come as strings',
      );
      assert.equal(page.options.enableCommandUris, false);
      assert.deepEqual(
        (page.options.localResourceRoots ?? []).map((u) => u.path.split('/').pop()),
        ['dist', 'media'],
      );
      const more = Date.now();
      const after = await vscode.commands.executeCommand<SearchOutcome>(Commands.loadMore);
      assert.equal(after.shown, 40);
      assert.equal(after.requests, 0, 'Load More came from the buffer');
      await eventually(() => lastReport(t, 'shown', more)?.rows === 40, 'the page to show 40 rows', 300);
      const appended = t.posted.filter((p) => p.type === 'rows').at(-1);
      assert.deepEqual({ rows: appended?.rows, append: appended?.append }, { rows: 20, append: true });
    });

    test('a sort given to the command orders the table; the page reports it and the next table starts with it', async () => {
      const t = await table();
      const since = Date.now();
      await vscode.commands.executeCommand(Commands.showEvidenceTable, { sort: { column: 'year', descending: true } });
      await eventually(() => lastReport(t, 'sorted', since) !== undefined, 'the page to report the sort', 300);
      const sorted = lastReport(t, 'sorted', since)!;
      assert.deepEqual(
        { ...sorted, ms: 0 },
        { type: 'sorted', sort: { column: 'year', descending: true }, shown: 40, ms: 0 },
      );
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      assert.equal(t.isOpen, false);
      const reopened = Date.now();
      await vscode.commands.executeCommand(Commands.showEvidenceTable);
      assert.ok(
        t
          .inspect()!
          .html.includes('&quot;sort&quot;:{&quot;column&quot;:&quot;year&quot;,&quot;descending&quot;:true}'),
        'the kept sort is in the new page',
      );
      await eventually(() => lastReport(t, 'shown', reopened)?.rows === 40, 'the new page to paint', 300);
      const back = Date.now();
      await vscode.commands.executeCommand(Commands.showEvidenceTable, { sort: null });
      await eventually(() => lastReport(t, 'sorted', back)?.sort === null, 'the search order again', 300);
    });

    test('messages are validated on the host: malformed ones and ids of other results do nothing', async () => {
      const t = await table();
      const before = t.refused.length;
      await t.receive({ type: 'insertCitation', generation: (await generation()) + 1, ids: [0] });
      await t.receive({ type: 'openPaper', generation: await generation(), id: 0, url: 'javascript:alert(1)' });
      await t.receive({ type: 'copyBibtex', generation: await generation(), ids: [45] });
      await t.receive({ type: 'columns', hidden: ['title'] });
      await t.receive('ready');
      assert.deepEqual(t.refused.slice(before), [
        'insertCitation: results changed',
        'openPaper: bad fields',
        'copyBibtex: unknown row',
        'columns: bad hidden list',
        'not an object',
      ]);
    });

    test('Insert Citation and Copy BibTeX of selected rows run the citation commands with those papers', async () => {
      const dir = workspaceDir('table');
      const bib = vscode.Uri.joinPath(dir, 'refs.bib');
      await writeFile(bib, '% refs\n');
      const editor = await openDoc(
        vscode.Uri.joinPath(dir, 'draft.md'),
        '---\nbibliography: refs.bib\n---\n\nClaim|.\n',
      );
      const t = await table();
      const papers = await shownPapers();
      await t.receive({ type: 'insertCitation', generation: await generation(), ids: [0, 2] });
      const bibText = await readDisk(bib);
      const keys = [...(bibText ?? '').matchAll(/^@\w+\{([^,]+),/gm)].map((m) => m[1]!);
      assert.equal(keys.length, 2, bibText);
      assert.ok(editor.document.getText().includes(`[@${keys[0]!}; @${keys[1]!}]`), editor.document.getText());
      for (const i of [0, 2]) assert.ok(bibText!.includes(papers[i]!.doi!.toLowerCase()), `paper ${i} in refs.bib`);
      await vscode.env.clipboard.writeText('');
      await t.receive({ type: 'copyBibtex', generation: await generation(), ids: [1] });
      const copied = await vscode.env.clipboard.readText();
      assert.equal(copied.match(/^@\w+\{/gm)?.length, 1, copied);
      assert.ok(copied.includes(papers[1]!.doi!.toLowerCase()), copied);
    });

    test('Ask the Research Agent about selected rows runs Ask about Selected Papers with their ids', async () => {
      const t = await table();
      const papers = await shownPapers();
      const commands = vscode.commands as { executeCommand: (id: string, ...args: unknown[]) => Thenable<unknown> };
      const original = commands.executeCommand;
      const calls: unknown[][] = [];
      // The extension and this suite share one vscode API object: the call is recorded, not run (no thread is sent).
      commands.executeCommand = (id: string, ...args: unknown[]) => {
        if (id === Commands.askAboutPapers) {
          calls.push(args);
          return Promise.resolve({ outcome: 'cancelled' });
        }
        return original.call(vscode.commands, id, ...args);
      };
      try {
        await t.receive({ type: 'askAgent', generation: await generation(), ids: [3, 1] });
      } finally {
        commands.executeCommand = original;
      }
      const ids = [3, 1].map((i) => papers[i]!.url!.split('/').filter(Boolean).at(-1));
      assert.deepEqual(calls, [[{ attachPapers: ids }]]);
    });

    test('Export from the table (the save dialog) and from the results view: CSL-JSON and RIS files that parse', async () => {
      const t = await table();
      const papers = await shownPapers();
      const folder = vscode.workspace.workspaceFolders![0]!.uri;
      // The query, cut between words at 60 characters, is the name the save dialog offers.
      const base = 'effect-of-formative-feedback-on-mathematics-performance-in';
      const json = vscode.Uri.joinPath(folder, `${base}.json`);
      await Promise.resolve(vscode.workspace.fs.delete(json)).catch(() => undefined);
      // The save dialog offers the query as the file name in the workspace folder; a person accepts it.
      await acceptQuickInput(
        t.receive({ type: 'export', generation: await generation(), ids: [4, 0, 7], format: 'csl-json' }),
      );
      const items = JSON.parse((await readDisk(json)) ?? 'null') as CslItem[];
      assert.deepEqual(
        items.map((i) => i.title),
        [4, 0, 7].map((i) => papers[i]!.title),
      );
      assert.ok(items.every((i) => i.type === 'article-journal' && i.author?.length && i.DOI));
      await vscode.workspace.fs.delete(json);

      const ris = vscode.Uri.joinPath(workspaceDir('table'), 'all.ris');
      const r = await vscode.commands.executeCommand<ExportOutcome>(Commands.exportPapers, {
        format: 'ris',
        target: ris,
      });
      assert.equal(r.done, true);
      assert.equal(r.count, 40, 'every paper shown when none is selected');
      const text = (await readDisk(ris)) ?? '';
      assert.equal(text.match(/^TY {2}- (JOUR|UNPB|GEN)\r$/gm)?.length, 40);
      assert.equal(text.match(/^ER {2}- \r$/gm)?.length, 40);
      assert.ok(
        text.split('\r\n').every((l) => l === '' || RIS_LINE.test(l)),
        'every line a tag line',
      );

      // The results view's context menu: the clicked paper; the format asked for, the save dialog accepted.
      const node = (await api()).results.getChildren()[5]!;
      const bib = vscode.Uri.joinPath(folder, `${base}.bib`);
      await Promise.resolve(vscode.workspace.fs.delete(bib)).catch(() => undefined);
      const b = await acceptQuickInput(
        Promise.resolve(vscode.commands.executeCommand<ExportOutcome>(Commands.exportPapers, node, [node])),
      );
      assert.deepEqual({ done: b.done, format: b.format, count: b.count }, { done: true, format: 'bibtex', count: 1 });
      const one = (await readDisk(bib)) ?? '';
      assert.equal(one.match(/^@article\{/gm)?.length, 1, one);
      assert.ok(one.includes(papers[5]!.doi!.toLowerCase()));
      await vscode.workspace.fs.delete(bib);
    });

    test('a page that asks again gets the rows already built; Load More and new results are built anew', async () => {
      await vscode.commands.executeCommand<SearchOutcome>(Commands.searchPapers, QUERY);
      const t = await table();
      const lastRows = () => t.posted.filter((p) => p.type === 'rows').at(-1);
      let since = Date.now();
      await vscode.commands.executeCommand(Commands.showEvidenceTable);
      await eventually(() => lastReport(t, 'shown', since)?.rows === 20, 'the page to paint 20 rows', 300);
      // As VS Code reloads a hidden webview: its page asks again.
      since = Date.now();
      await t.receive({ type: 'ready' });
      await eventually(() => lastReport(t, 'shown', since)?.rows === 20, 'the page to paint 20 rows again', 300);
      assert.deepEqual(
        { rows: lastRows()?.rows, append: lastRows()?.append, built: lastRows()?.built },
        { rows: 20, append: false, built: 0 },
        'the rows already built were sent',
      );
      since = Date.now();
      await vscode.commands.executeCommand<SearchOutcome>(Commands.loadMore);
      await eventually(() => lastReport(t, 'shown', since)?.rows === 40, 'the page to show 40 rows', 300);
      since = Date.now();
      await t.receive({ type: 'ready' });
      await eventually(() => lastReport(t, 'shown', since)?.rows === 40, 'all 40 rows after asking again', 300);
      assert.equal(lastRows()?.built, 40, 'the 40 rows were built for the page that asked again');
      since = Date.now();
      await t.receive({ type: 'ready' });
      await eventually(() => lastReport(t, 'shown', since)?.rows === 40, 'all 40 rows once more', 300);
      assert.equal(lastRows()?.built, 0, 'and then sent as built');
      // New results: their own rows, under their generation.
      since = Date.now();
      await vscode.commands.executeCommand<SearchOutcome>(
        Commands.searchPapers,
        'sleep deprivation and working memory',
      );
      const gen = await generation();
      await eventually(() => lastReport(t, 'shown', since)?.generation === gen, 'the new results painted', 300);
      assert.deepEqual(
        { rows: lastRows()?.rows, append: lastRows()?.append, built: lastRows()?.built },
        { rows: (await shownPapers()).length, append: false, built: (await shownPapers()).length },
      );
      assert.equal(lastRows()?.generation, gen);
    });
  });
}
