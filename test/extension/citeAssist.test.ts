/**
 * Cite-key completion, hover and links in the real VS Code: .tex, .md, .qmd and .typ
 * documents of the test workspace with a real .bib; the entry bundle's adapter loads the core only near a citation
 * (checked with a counting stand-in for the core loader); accepting a recent paper writes its entry with the same key
 * as the text; hover on the 2nd key of a multi-line citation; untrusted .bib text escaped; links https only.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { parseBibFile } from '../../src/bib/bibFile';
import type { CitePaper } from '../../src/citations/types';
import { plainFile } from '../unit/bib/plainParse';
import { createFirstList } from '../../src/citations/firstList';
import {
  registerCiteProviders,
  warmFirstList,
  type CiteAssistant,
  type CiteAccess,
  type FirstListAssistant,
} from '../../src/citations/providers';
import { Commands, Settings } from '../../src/platform/ids';
import {
  api,
  eventually,
  setUserSettings,
  sleep,
  testCore,
  workspaceDir,
  writeAndOpen as openDoc,
  writeFile as write,
} from './support';

const BIB = String.raw`@article{sandkuhler2023creatine,
  title = {Creatine Supplementation and Cognitive Performance},
  author = {Sandk{\"u}hler, Julia and M{\"u}ller, Anna},
  journal = {Nutrients},
  year = {2023},
  doi = {10.3390/nu15000001}
}

@article{evil2020,
  title = {*Bold* [click](command:workbench.action.quit) <img src=x onerror=alert(1)> \& \$(alert) more},
  author = {Doe, Jane},
  journal = {J. Tests},
  year = {2020},
  url = {javascript:alert(1)}
}

@misc{plain2019caffeine,
  title = {Caffeine Timing and Memory},
  author = {Roe, Richard},
  year = {2019},
  url = {https://example.org/caffeine}
}
`;

/** A recent search result that is in the bibliography (same DOI, other case): it adds takeaway and quartile. */
const RECENT_IN_BIB: CitePaper = {
  id: 'r-in',
  title: 'Creatine supplementation and cognitive performance',
  authors: ['Julia Sandkühler', 'Anna Müller'],
  journal_name: 'Nutrients',
  publish_year: 2023,
  doi: '10.3390/NU15000001',
  takeaway: 'Creatine improved *short-term* memory <b>[1](command:x)</b>.',
  sjr_best_quartile: 1,
  url: 'https://consensus.app/papers/creatine/r-in/',
};
/** A recent result that is not in the bibliography. */
const RECENT_NEW: CitePaper = {
  id: 'r-new',
  title: 'Caffeine and sleep latency in shift workers',
  authors: ['Kenji Tanaka', 'Ana Lima'],
  journal_name: 'Sleep',
  publish_year: 2022,
  doi: '10.1093/sleep/zs2022.1',
  takeaway: 'Late caffeine delayed sleep onset.',
  sjr_best_quartile: 2,
};

const freshDir = (): vscode.Uri => workspaceDir('cite-assist-tests');

/** An entry of a large .bib (with `close` '' it is left unclosed). */
const bigEntry = (i: number, close = '}'): string =>
  `@article{big${i},\n  title = {Sleep and Memory in Adolescents, Study ${i}},\n  author = {Sandk{\\"u}hler, Zo{\\"e} and Müller, Ånna},\n  abstract = {${'Ünïcode text of an abstract. '.repeat(10)}},\n  year = {2020}\n${close}\n`;
/** 3,000 such entries: over 1 MB, so a first list comes from its head. */
const bigBib = (): string => Array.from({ length: 3000 }, (_, i) => bigEntry(i)).join('\n');

/** A folder with refs.bib and the given documents. */
async function folder(files: Record<string, string> = {}): Promise<vscode.Uri> {
  const dir = freshDir();
  await write(vscode.Uri.joinPath(dir, 'refs.bib'), BIB);
  for (const [name, text] of Object.entries(files)) await write(vscode.Uri.joinPath(dir, name), text);
  return dir;
}

/** What accepting the item inserts (a plain string for our items). */
function insertTextOf(item: vscode.CompletionItem): string {
  assert.equal(typeof item.insertText, 'string', 'the item inserts a snippet');
  return item.insertText as string;
}

const labelOf = (item: vscode.CompletionItem): string =>
  typeof item.label === 'string' ? item.label : item.label.label;

async function complete(
  doc: vscode.TextDocument,
  at: vscode.Position,
  trigger?: string,
): Promise<vscode.CompletionItem[]> {
  const list = await vscode.commands.executeCommand<vscode.CompletionList>(
    'vscode.executeCompletionItemProvider',
    doc.uri,
    at,
    trigger,
  );
  return list.items;
}

/** Our items only: other providers may answer too (VS Code's word-based suggestions when no one else does). */
const isCiteItem = (i: vscode.CompletionItem): boolean =>
  i.kind === vscode.CompletionItemKind.Reference || i.kind === vscode.CompletionItemKind.Value;
async function citeLabels(doc: vscode.TextDocument, at: vscode.Position, trigger?: string): Promise<string[]> {
  return (await complete(doc, at, trigger)).filter(isCiteItem).map(labelOf);
}

async function hoverText(
  doc: vscode.TextDocument,
  at: vscode.Position,
): Promise<{ text: string; hovers: vscode.Hover[] }> {
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, at);
  const text = hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : c.value))
    .join('\n---\n');
  return { text, hovers };
}

/** The position of the n-th occurrence (0-based) of `needle` in the document, plus `shift` characters. */
function positionOf(doc: vscode.TextDocument, needle: string, shift = 0, nth = 0): vscode.Position {
  let i = -1;
  for (let n = 0; n <= nth; n++) i = doc.getText().indexOf(needle, i + 1);
  assert.ok(i >= 0, `${needle} not in the document`);
  return doc.positionAt(i + shift);
}

export function citeAssistSuite(): void {
  suite('Cite assist (completion, hover, links)', () => {
    let restore: (() => Promise<void>) | undefined;

    suiteSetup(async () => {
      restore = await setUserSettings({
        [Settings.citationsKeyScheme]: undefined,
        [Settings.citationsDefaultBibliography]: undefined,
      });
    });

    setup(async () => {
      const c = await testCore();
      c.bibliographies.clearCache();
      c.recentPapers.clear();
      c.recentPapers.remember([RECENT_IN_BIB, RECENT_NEW]);
    });

    suiteTeardown(async () => {
      (await testCore()).recentPapers.clear();
      await vscode.commands.executeCommand('workbench.action.files.saveAll');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await restore?.();
    });

    test('the entry bundle loads the citation bundle only near a citation (a counting stand-in for the loader)', async () => {
      let gets = 0;
      const stub: CiteAssistant = {
        provideCompletion: () => Promise.resolve(undefined),
        resolveCompletion: (item: vscode.CompletionItem) => item,
        provideHover: () => Promise.resolve(undefined),
        provideDocumentLinks: () => Promise.resolve(undefined),
        prepareCompletion: () => undefined,
      };
      const loader: CiteAccess = {
        loaded: false,
        get: () => {
          gets++;
          return stub;
        },
      };
      const providers = registerCiteProviders(loader, { warn: () => undefined });
      try {
        const dir = freshDir();
        const prose = await openDoc(
          vscode.Uri.joinPath(dir, 'README.md'),
          '# Notes\n\nPing @alice or write to me@exa|mple.com about it.\n',
        );
        await complete(prose.doc, prose.at, '@');
        await complete(prose.doc, positionOf(prose.doc, 'Notes', 2));
        // A bare @mention in a Markdown file that neither cites nor declares a bibliography.
        await complete(prose.doc, positionOf(prose.doc, '@alice', 1), '@');
        await vscode.commands.executeCommand(
          'vscode.executeHoverProvider',
          prose.doc.uri,
          positionOf(prose.doc, 'alice', 2),
        );
        await vscode.commands.executeCommand(
          'vscode.executeHoverProvider',
          prose.doc.uri,
          positionOf(prose.doc, 'example', 2),
        );
        await vscode.commands.executeCommand('vscode.executeLinkProvider', prose.doc.uri);
        const tex = await openDoc(
          vscode.Uri.joinPath(dir, 'plain.tex'),
          'No citations, just {braces}, commas| and \\emph{words}.\n',
        );
        await complete(tex.doc, tex.at, ',');
        await vscode.commands.executeCommand('vscode.executeLinkProvider', tex.doc.uri);
        assert.equal(gets, 0, 'the core was asked for outside any citation');

        const md = await openDoc(vscode.Uri.joinPath(dir, 'cited.md'), 'As shown [@|\n');
        await complete(md.doc, md.at, '@');
        assert.equal(gets, 1, 'completion after [@ did not reach the core');
        const cited = await openDoc(vscode.Uri.joinPath(dir, 'cited.tex'), 'See \\cite{smith2020,\n  doe2021}.\n');
        await vscode.commands.executeCommand(
          'vscode.executeHoverProvider',
          cited.doc.uri,
          positionOf(cited.doc, 'doe2021', 3),
        );
        assert.equal(gets, 2, 'hover on a cite key did not reach the core');
        await vscode.commands.executeCommand('vscode.executeLinkProvider', cited.doc.uri);
        assert.equal(gets, 3, 'links of a document with citations did not reach the core');
      } finally {
        providers.dispose();
      }
    });

    test('before the citation bundle loads, the first list comes from the first-list bundle, then the citation bundle loads (stand-ins)', async () => {
      const dir = freshDir();
      let citeGets = 0;
      const prepared: string[] = [];
      const citeStub: CiteAssistant = {
        provideCompletion: () => Promise.resolve(new vscode.CompletionList([new vscode.CompletionItem('cite-item')])),
        resolveCompletion: (item: vscode.CompletionItem) => item,
        provideHover: () => Promise.resolve(undefined),
        provideDocumentLinks: () => Promise.resolve(undefined),
        prepareCompletion: (d) => void prepared.push(d.uri.path),
      };
      const cite: CiteAccess = {
        get loaded() {
          return citeGets > 0;
        },
        get: () => {
          citeGets++;
          return citeStub;
        },
      };
      let firstGets = 0;
      const firstStub: FirstListAssistant = {
        // A list for big.tex only, a failure for broken.tex; elsewhere not a list of that kind.
        provide: (d) =>
          d.uri.path.endsWith('broken.tex')
            ? Promise.reject(new Error('unreadable'))
            : Promise.resolve(
                d.uri.path.endsWith('big.tex')
                  ? new vscode.CompletionList([new vscode.CompletionItem('first-item')], true)
                  : undefined,
              ),
        resolve: (item) => {
          item.detail = 'resolved by the first-list bundle';
          return item;
        },
        warm: () => Promise.resolve(),
      };
      const first = {
        get loaded() {
          return firstGets > 0;
        },
        get: () => {
          firstGets++;
          return firstStub;
        },
      };
      const providers = registerCiteProviders(cite, { warn: () => undefined }, first);
      try {
        const prose = await openDoc(vscode.Uri.joinPath(dir, 'notes.md'), 'Write to me@exa|mple.com.\n');
        await complete(prose.doc, prose.at, '@');
        assert.equal(firstGets + citeGets, 0, 'a bundle was loaded outside any citation');

        const big = await openDoc(vscode.Uri.joinPath(dir, 'big.tex'), 'See \\cite{|}.\n');
        const resolved = await vscode.commands.executeCommand<vscode.CompletionList>(
          'vscode.executeCompletionItemProvider',
          big.doc.uri,
          big.at,
          '{',
          10,
        );
        const item = resolved.items.find((i) => labelOf(i) === 'first-item');
        assert.equal(item?.detail, 'resolved by the first-list bundle');
        assert.equal(
          resolved.items.some((i) => labelOf(i) === 'cite-item'),
          false,
        );
        assert.equal(citeGets, 0, 'the citation bundle was loaded for the first list');
        // Once the list has had time to show, the citation bundle loads and reads the file whole.
        await eventually(() => Promise.resolve(prepared.length === 1), 'the citation bundle prepared nothing');
        assert.deepEqual(prepared, [big.doc.uri.path]);
        assert.equal(citeGets, 1);

        // The citation bundle loaded: every list is its own, the first-list bundle is not asked again.
        const loadsOfFirst = firstGets;
        const labels = (await complete(big.doc, big.at, '{')).map(labelOf);
        assert.equal(labels.includes('cite-item'), true);
        assert.equal(labels.includes('first-item'), false);
        assert.equal(firstGets, loadsOfFirst);
      } finally {
        providers.dispose();
      }
      // Not a list of that kind, or the first list failed: the citation bundle gives it at once.
      for (const name of ['small.tex', 'broken.tex']) {
        citeGets = 0;
        firstGets = 0;
        prepared.length = 0;
        const warnings: string[] = [];
        const again = registerCiteProviders(cite, { warn: (m) => void warnings.push(m) }, first);
        try {
          const other = await openDoc(vscode.Uri.joinPath(dir, name), 'See \\cite{|}.\n');
          const labels = (await complete(other.doc, other.at, '{')).map(labelOf);
          assert.equal(labels.includes('cite-item'), true, name);
          assert.equal(firstGets, 1);
          assert.equal(citeGets, 1);
          assert.deepEqual(warnings, name === 'broken.tex' ? ['The first list failed: unreadable'] : []);
          await sleep(300);
          assert.deepEqual(prepared, [], 'the citation bundle gave the list: nothing to prepare after it');
        } finally {
          again.dispose();
        }
      }
    });

    test('a document that cites or declares a bibliography has its first list made ready once its editor stays active; nothing for other documents (stand-ins)', async () => {
      const dir = freshDir();
      const warmed: string[] = [];
      let gets = 0;
      const stub: FirstListAssistant = {
        provide: () => Promise.resolve(undefined),
        resolve: (item) => item,
        warm: (d) => {
          warmed.push(d.uri.path.slice(d.uri.path.lastIndexOf('/') + 1));
          return Promise.resolve();
        },
      };
      const first = {
        get loaded() {
          return gets > 0;
        },
        get: () => {
          gets++;
          return stub;
        },
      };
      let citeLoaded = false;
      const cite = {
        get loaded() {
          return citeLoaded;
        },
      };
      const warming = warmFirstList(first, cite, { warn: () => undefined }, 250);
      const open = async (name: string, text: string): Promise<void> => {
        const doc = (await openDoc(vscode.Uri.joinPath(dir, name), text)).doc;
        await vscode.window.showTextDocument(doc, { preview: false });
      };
      try {
        // Prose with an e-mail address, and LaTeX that neither cites nor declares a bibliography: nothing loads.
        await open('notes.md', 'Write to me@example.com.\n');
        await open('plain.tex', 'Just text, \\emph{no} citations.\n');
        await sleep(600);
        assert.deepEqual(warmed, []);
        assert.equal(gets, 0, 'the first-list bundle loaded for a document that does not cite');
        // Documents that cite nothing yet but declare a bibliography, and one that cites.
        await open('paper.tex', 'Intro.\n\\bibliography{refs}\n');
        await eventually(() => warmed.length === 1, 'the LaTeX document was made ready');
        await open('paper.typ', '= Title\n#bibliography("refs.bib")\n');
        await eventually(() => warmed.length === 2, 'the Typst document was made ready');
        await open('cites.md', 'As shown [@doe2020].\n');
        await eventually(() => warmed.length === 3, 'the Markdown document was made ready');
        assert.deepEqual(warmed, ['paper.tex', 'paper.typ', 'cites.md']);
        // Passed through quicker than the delay: only the editor left active is made ready.
        const a = (await openDoc(vscode.Uri.joinPath(dir, 'a.tex'), '\\addbibresource{refs.bib}\n')).doc;
        const b = (await openDoc(vscode.Uri.joinPath(dir, 'b.tex'), '\\addbibresource[label=x]{refs.bib}\n')).doc;
        await vscode.window.showTextDocument(a, { preview: false });
        await vscode.window.showTextDocument(b, { preview: false });
        await eventually(() => warmed.length === 4, 'the last LaTeX document was made ready');
        await sleep(500);
        assert.deepEqual(warmed.slice(3), ['b.tex']);
        // The citation bundle loaded (it reads whole files itself): nothing more.
        citeLoaded = true;
        await open('later.tex', '\\bibliography{refs}\n');
        await sleep(600);
        assert.equal(warmed.length, 4);
      } finally {
        warming.dispose();
      }
    });

    test("the first-list bundle lists what the citation bundle would: a large .bib's first 25 entries from its head, else nothing", async () => {
      const dir = freshDir();
      await write(vscode.Uri.joinPath(dir, 'refs.bib'), bigBib());
      const c = await testCore();
      c.recentPapers.clear();
      let recent = false;
      const firstList = createFirstList(() => recent);
      const token = new vscode.CancellationTokenSource().token;
      const tex = await openDoc(vscode.Uri.joinPath(dir, 'big.tex'), 'Text \\cite{|}\n\\bibliography{refs}\n');
      // Read ahead (as the entry bundle asks once the editor is active): a list asked while the read is under way
      // takes it, and a list asked after it does not read the head again.
      const warming = firstList.warm(tex.doc);
      const during = await firstList.provide(tex.doc, tex.at, token);
      await warming;
      assert.equal(firstList.headReads, 1, 'the list asked during the read ahead read the head again');
      assert.equal(during?.items[0] && labelOf(during.items[0]), 'big0');
      const ahead = await firstList.provide(tex.doc, tex.at, token);
      assert.equal(firstList.headReads, 1, 'the head read ahead was read again');
      assert.equal(ahead?.items[0] && labelOf(ahead.items[0]), 'big0');
      // The .bib changed since: its head is read anew.
      await write(vscode.Uri.joinPath(dir, 'refs.bib'), bigBib().replace('@article{big0,', '@article{fresh0,'));
      const ours = await firstList.provide(tex.doc, tex.at, token);
      assert.ok(ours, 'no list from the head');
      assert.equal(firstList.headReads, 2);
      assert.equal(ours.items[0] && labelOf(ours.items[0]), 'fresh0');
      assert.equal(ours.isIncomplete, true);
      c.bibliographies.clearCache();
      const theirs = await c.citeCompletion.provide(tex.doc, tex.at, token);
      await c.citeCompletion.afterList;
      const shape = (list: vscode.CompletionList): unknown =>
        list.items.map((i) => [i.label, i.kind, i.sortText, i.filterText, i.insertText, i.range]);
      assert.deepEqual(shape(ours), shape(theirs!));
      assert.equal(ours.items.length, 25);
      // Details from the raw fields, by this bundle before the citation bundle loads, and by the citation bundle after
      // (the extension's own instance of this bundle, which the citation bundle shares).
      const [a] = ours.items;
      assert.equal(firstList.resolve(a!).detail, 'Sleep and Memory in Adolescents, Study 0');
      assert.equal(a!.documentation, 'Sandkühler, Müller · 2020');
      c.bibliographies.clearCache();
      const shared = await (await api()).firstList().get().provide(tex.doc, tex.at, token);
      const later = await c.citeCompletion.resolve(shared!.items[1]!);
      assert.equal(later.detail, 'Sleep and Memory in Adolescents, Study 1');
      assert.match(
        typeof later.documentation === 'string' ? later.documentation : '',
        /^Sandkühler, .*Müller.* · 2020$/u,
      );

      // Not a list of that kind: a prefix typed, recent papers to offer, a small .bib, the .bib open in an editor.
      const typed = await openDoc(vscode.Uri.joinPath(dir, 'typed.tex'), 'Text \\cite{big|}\n\\bibliography{refs}\n');
      assert.equal(await firstList.provide(typed.doc, typed.at, token), undefined);
      recent = true;
      assert.equal(await firstList.provide(tex.doc, tex.at, token), undefined);
      recent = false;
      const smallDir = await folder();
      const small = await openDoc(vscode.Uri.joinPath(smallDir, 'small.tex'), 'Text \\cite{|}\n\\bibliography{refs}\n');
      assert.equal(await firstList.provide(small.doc, small.at, token), undefined);
      await vscode.workspace.openTextDocument(vscode.Uri.joinPath(dir, 'refs.bib'));
      assert.equal(await firstList.provide(tex.doc, tex.at, token), undefined);
    });

    test("the citation bundle's V8 code cache is saved in the extension's storage after its first load", async () => {
      await testCore();
      const cache = (await api()).citeCodeCache();
      assert.ok(cache.dir, 'no code cache folder: the global storage is a local folder here');
      // A fresh profile: nothing to take yet (a later session takes it: the unit suite runs those sessions).
      assert.equal(cache.fromCache, false);
      await cache.saved;
      const files = readdirSync(cache.dir).filter((f) => f.startsWith('cite.js.'));
      assert.equal(files.length, 1, files.join(', '));
      assert.match(files[0]!, /^cite\.js\.[0-9a-f]{32}\.v8cache$/);
      // Bytecode, not an empty or placeholder file: far larger than a V8 header.
      assert.ok(statSync(join(cache.dir, files[0]!)).size > 20_000);
    });

    test('LaTeX: \\cite{ offers the bibliography (decoded on resolve) and then the recent paper that is not in it, marked', async () => {
      const dir = await folder();
      const { doc, at } = await openDoc(
        vscode.Uri.joinPath(dir, 'paper.tex'),
        'Text \\cite{|}\n\\bibliography{refs}\n',
      );
      const list = await complete(doc, at, '{');
      const ours = list.filter(isCiteItem);
      assert.deepEqual(ours.map(labelOf), [
        'sandkuhler2023creatine',
        'evil2020',
        'plain2019caffeine',
        'tanaka2022caffeine',
      ]);
      const recent = ours[3]!;
      assert.equal(
        typeof recent.label === 'object' && /not in bibliography/u.test(recent.label.detail ?? ''),
        true,
        'the recent paper is not marked',
      );
      assert.equal(recent.command?.command, Commands.addToBibliography);
      assert.equal(recent.detail, RECENT_NEW.title);
      // The paper in the bibliography (same DOI as a recent result) is offered once, as the entry.
      assert.equal(ours.filter((i) => labelOf(i).startsWith('sandkuhler')).length, 1);
      const entry = ours[0]!;
      assert.equal(entry.command, undefined);
      assert.equal(entry.insertText, 'sandkuhler2023creatine');
      // A range, or the same range to insert and to replace (the form VS Code does not send when it is its own).
      const ranges = !entry.range ? [] : 'start' in entry.range ? [entry.range] : Object.values(entry.range);
      assert.ok(
        ranges.length && ranges.every((r) => r.start.isEqual(at)),
        'the replace range does not start at the key',
      );
      // Resolving gives authors, year and journal, accents decoded (from the raw fields until the library is loaded).
      const resolved = await vscode.commands.executeCommand<vscode.CompletionList>(
        'vscode.executeCompletionItemProvider',
        doc.uri,
        at,
        '{',
        50,
      );
      const r = resolved.items.find((i) => labelOf(i) === 'sandkuhler2023creatine');
      const documentation = typeof r?.documentation === 'string' ? r.documentation : r?.documentation?.value;
      assert.equal(documentation, 'Sandkühler, Julia, Müller, Anna · 2023 · Nutrients');
    });

    test('a .bib of 256 KB or more lists its first 25 entries from its head, the same as its whole parse; 100 once read', async () => {
      const dir = freshDir();
      const entry = bigEntry;
      const big = bigBib();
      assert.ok(Buffer.byteLength(big) > 1 << 20, 'the file is under 1 MB: its head is not all of it');
      await write(vscode.Uri.joinPath(dir, 'refs.bib'), big);
      const c = await testCore();
      c.recentPapers.clear();
      // The cache is cleared before each file below; the preparation the last list set going reads the file, so it
      // is done first.
      const forget = async (): Promise<void> => {
        await c.citeCompletion.afterList;
        c.bibliographies.clearCache();
      };
      const tex = await openDoc(vscode.Uri.joinPath(dir, 'big.tex'), 'Text \\cite{|}\n\\bibliography{refs}\n');
      const first = await citeLabels(tex.doc, tex.at, '{');
      assert.deepEqual(
        first,
        Array.from({ length: 25 }, (_, i) => `big${i}`),
      );
      // The whole file is read after the list; then lists hold up to 100, and the head's entries are the parse's.
      await eventually(async () => (await citeLabels(tex.doc, tex.at, '{')).length === 100, 'a list of 100');
      const whole = (await c.bibliographies.entries(tex.doc)).map((e) => e.entry.key);
      assert.deepEqual(whole.slice(0, 25), first);

      // An entry the head cannot read (not closed) sends the first list to the whole file: no head list past it.
      await forget();
      const broken = Array.from({ length: 3000 }, (_, i) => entry(i, i === 20 ? '' : '}')).join('\n');
      await write(vscode.Uri.joinPath(dir, 'refs.bib'), broken);
      const listed = await citeLabels(tex.doc, tex.at, '{');
      assert.equal(listed.length, 100);
      assert.equal(listed.includes('big20'), false);
      assert.deepEqual(listed.slice(0, 21), [...Array.from({ length: 20 }, (_, i) => `big${i}`), 'big21']);

      // An entry longer than the first reads (a 1.2 MB abstract on one line): the head is read again, 4 MB long.
      await forget();
      const long = entry(0).replace('abstract = {', `abstract = {${'x'.repeat(1_200_000)}`);
      await write(
        vscode.Uri.joinPath(dir, 'refs.bib'),
        [long, ...Array.from({ length: 2999 }, (_, i) => entry(i + 1))].join('\n'),
      );
      assert.deepEqual(
        await citeLabels(tex.doc, tex.at, '{'),
        Array.from({ length: 25 }, (_, i) => `big${i}`),
      );

      // Bytes that are not UTF-8 in the head: the list waits for the whole file, read as it always is.
      await forget();
      const latin1 = Buffer.from(big.replace('Study 3}', 'Study 3 \u00e9}'), 'latin1');
      await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(dir, 'refs.bib'), latin1);
      const fallback = await citeLabels(tex.doc, tex.at, '{');
      assert.equal(fallback.length, 100);
      assert.deepEqual(fallback.slice(0, 3), ['big0', 'big1', 'big2']);

      // A file whose first 256 KB hold fewer than 25 entries, shorter than the next read (30 entries of about 12 KB,
      // 370 KB): read whole, and parsed only as far as the list needs.
      await forget();
      const wide = (i: number): string => entry(i).replace('abstract = {', `abstract = {${'y'.repeat(12000)}`);
      const thirty = Array.from({ length: 30 }, (_, i) => wide(i)).join('\n');
      assert.ok(Buffer.byteLength(thirty) > 256 << 10 && Buffer.byteLength(thirty) < 1 << 20);
      await write(vscode.Uri.joinPath(dir, 'refs.bib'), thirty);
      assert.deepEqual(
        await citeLabels(tex.doc, tex.at, '{'),
        Array.from({ length: 25 }, (_, i) => `big${i}`),
      );
    });

    test('LaTeX: after a comma, across lines, and the typed prefix filters by key, title word and author', async () => {
      const dir = await folder();
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'paper.tex'),
        'See \\citep[p.~4]{evil2020,\n  caff} and \\cite{roe} and \\cite{tan}.\n\\bibliography{refs}\n',
      );
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'evil2020,', 9), ','), [
        'sandkuhler2023creatine',
        'evil2020',
        'plain2019caffeine',
        'tanaka2022caffeine',
      ]);
      // "caff": both keys contain it; the bibliography entry first.
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'caff}', 4)), ['plain2019caffeine', 'tanaka2022caffeine']);
      // "roe": only an author's family name.
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'roe}', 3)), ['plain2019caffeine']);
      // "tan": a key prefix of the recent paper only.
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'tan}', 3)), ['tanaka2022caffeine']);
      // Outside the braces: nothing of ours.
      assert.deepEqual(await citeLabels(doc, positionOf(doc, ' and', 1)), []);
    });

    test('a list holds the best 100 of entries and recent papers: a recent key match before title-only entries', async () => {
      const dir = freshDir();
      const entry = (key: string, title: string): string =>
        `@article{${key},\n  title = {${title}},\n  author = {Roe, Richard},\n  year = {2021}\n}\n`;
      const bib = [
        entry('tanb1', 'First key match'),
        entry('tanb2', 'Second key match'),
        ...Array.from({ length: 150 }, (_, i) => entry(`w${i}`, `Tanning and skin, study ${i}`)),
      ].join('\n');
      await write(vscode.Uri.joinPath(dir, 'refs.bib'), bib);
      const { doc, at } = await openDoc(
        vscode.Uri.joinPath(dir, 'paper.tex'),
        'See \\cite{tan|}.\n\\bibliography{refs}\n',
      );
      const labels = await citeLabels(doc, at);
      // Key prefixes first (the entries, then the recent paper), then title words in bibliography order, cut at 100.
      assert.deepEqual(labels, [
        'tanb1',
        'tanb2',
        'tanaka2022caffeine',
        ...Array.from({ length: 97 }, (_, i) => `w${i}`),
      ]);
    });

    test('Markdown: after [@ and @ at a line start, not in an e-mail address, \\cite{ or code', async () => {
      const dir = await folder();
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'notes.md'),
        '---\nbibliography: refs.bib\n---\n\nShown before [@].\n@\nMail me@example.com or me@ today; \\cite{}\n```python\n@\n```\nCode `x = [@` here.\n',
      );
      const all = ['sandkuhler2023creatine', 'evil2020', 'plain2019caffeine', 'tanaka2022caffeine'];
      assert.deepEqual(await citeLabels(doc, positionOf(doc, '[@]', 2), '@'), all);
      assert.deepEqual(await citeLabels(doc, new vscode.Position(5, 1), '@'), all);
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'me@example', 3), '@'), []);
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'me@ today', 3), '@'), []);
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'cite{}', 5), '{'), []);
      // In a fenced code block (a Python decorator) and in inline code.
      assert.deepEqual(await citeLabels(doc, new vscode.Position(8, 1), '@'), []);
      assert.deepEqual(await citeLabels(doc, positionOf(doc, 'x = [@', 6), '@'), []);
      assert.deepEqual(
        await citeLabels(doc, new vscode.Position(5, 1), '@'),
        all,
        'the fence check broke completion before it',
      );
    });

    test('Quarto (_quarto.yml) and Typst (#cite(< and @) documents get the same items', async () => {
      const dir = await folder({ '_quarto.yml': 'project:\n  type: default\nbibliography: refs.bib\n' });
      const qmd = await openDoc(vscode.Uri.joinPath(dir, 'chapter.qmd'), '# One\n\nAs [@sand|]\n');
      assert.deepEqual(await citeLabels(qmd.doc, qmd.at), ['sandkuhler2023creatine']);
      const typ = await openDoc(
        vscode.Uri.joinPath(dir, 'doc.typ'),
        'See #cite(<|) and @pl.\n#bibliography("refs.bib")\n',
      );
      assert.deepEqual(await citeLabels(typ.doc, typ.at, '<'), [
        'sandkuhler2023creatine',
        'evil2020',
        'plain2019caffeine',
        'tanaka2022caffeine',
      ]);
      assert.deepEqual(await citeLabels(typ.doc, positionOf(typ.doc, '@pl', 3)), ['plain2019caffeine']);
    });

    test('accepting a recent paper writes its entry, with the key that was inserted', async () => {
      const dir = await folder();
      const { doc, at } = await openDoc(
        vscode.Uri.joinPath(dir, 'notes.md'),
        '---\nbibliography: refs.bib\n---\n\nSleep [@tan|] matters.\n',
      );
      const item = (await complete(doc, at)).find((i) => labelOf(i) === 'tanaka2022caffeine');
      assert.ok(item?.command && item.range && 'start' in item.range, 'no recent item with a command');
      // What accepting does: the key replaces the typed prefix, then the item's command runs.
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, item.range, insertTextOf(item));
      assert.ok(await vscode.workspace.applyEdit(edit));
      const key = await vscode.commands.executeCommand<string>(
        item.command.command,
        ...((item.command.arguments ?? []) as unknown[]),
      );
      assert.equal(key, 'tanaka2022caffeine');
      assert.equal(doc.lineAt(4).text, 'Sleep [@tanaka2022caffeine] matters.');
      const bib = (await vscode.workspace.openTextDocument(vscode.Uri.joinPath(dir, 'refs.bib'))).getText();
      assert.match(
        bib,
        /@article\{tanaka2022caffeine,\n\s+author = \{Tanaka, Kenji and Lima, Ana\},\n\s+title = \{Caffeine and sleep latency in shift workers\}/u,
      );
      assert.match(bib, /doi = \{10\.1093\/sleep\/zs2022\.1\}/u);
      assert.match(bib, /^@article\{sandkuhler2023creatine,/u, 'the existing entries were not kept');
      // Now in the bibliography: offered as an entry, not as a recent paper to add.
      const again = (await complete(doc, positionOf(doc, 'tanaka2022caffeine]', 3))).filter(
        (i) => labelOf(i) === 'tanaka2022caffeine',
      );
      assert.equal(again.length, 1);
      assert.equal(again[0]!.command, undefined);
    });

    test('accepting in the real suggest widget (typed `[@tan`, Enter) inserts the key and writes the entry', async () => {
      const dir = await folder();
      const { doc, at } = await openDoc(
        vscode.Uri.joinPath(dir, 'draft.md'),
        '---\nbibliography: refs.bib\n---\n\nSleep [@tan|] matters.\n',
      );
      const editor = await vscode.window.showTextDocument(doc, { preview: false });
      editor.selection = new vscode.Selection(at, at);
      const bibUri = vscode.Uri.joinPath(dir, 'refs.bib');
      const bibHas = async (): Promise<boolean> =>
        (await vscode.workspace.openTextDocument(bibUri)).getText().includes('@article{tanaka2022caffeine,');
      // The widget opens asynchronously and our provider answers after the core has read the .bib: retry the pair.
      for (let i = 0; i < 20 && !doc.lineAt(4).text.includes('tanaka2022caffeine'); i++) {
        await vscode.commands.executeCommand('editor.action.triggerSuggest');
        await sleep(300);
        await vscode.commands.executeCommand('acceptSelectedSuggestion');
        await sleep(100);
      }
      assert.equal(doc.lineAt(4).text, 'Sleep [@tanaka2022caffeine] matters.');
      await eventually(bibHas, "the accepted paper's entry is in refs.bib");
      await doc.save();
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    });

    test('when the bibliography took the predicted key meanwhile, the inserted key is replaced by the key written', async () => {
      const dir = await folder();
      const bibUri = vscode.Uri.joinPath(dir, 'refs.bib');
      const { doc, at } = await openDoc(vscode.Uri.joinPath(dir, 'doc.typ'), '#bibliography("refs.bib")\nAs @tan|\n');
      const item = (await complete(doc, at, '@')).find((i) => labelOf(i) === 'tanaka2022caffeine');
      assert.ok(item?.command && item.range && 'start' in item.range, 'no recent item with a command');
      // Someone adds another paper under that key (unsaved, in the open .bib) before the item is accepted.
      const bibDoc = await vscode.workspace.openTextDocument(bibUri);
      const clash = new vscode.WorkspaceEdit();
      clash.insert(
        bibUri,
        bibDoc.positionAt(bibDoc.getText().length),
        '\n@misc{tanaka2022caffeine,\n  title = {Another paper},\n  year = {2022}\n}\n',
      );
      assert.ok(await vscode.workspace.applyEdit(clash));
      const edit = new vscode.WorkspaceEdit();
      edit.replace(doc.uri, item.range, insertTextOf(item));
      assert.ok(await vscode.workspace.applyEdit(edit));
      const key = await vscode.commands.executeCommand<string>(
        item.command.command,
        ...((item.command.arguments ?? []) as unknown[]),
      );
      assert.equal(key, 'tanaka2022caffeinea');
      assert.equal(doc.lineAt(1).text, 'As @tanaka2022caffeinea');
      const bib = bibDoc.getText();
      assert.match(
        bib,
        /@article\{tanaka2022caffeinea,\n\s+author = \{Tanaka, Kenji and Lima, Ana\},\n\s+title = \{Caffeine and sleep latency/u,
      );
      assert.equal(bib.match(/@\w+\{tanaka2022caffeine,/gu)?.length, 1, "the other paper's entry changed");
    });

    test('hover on the 2nd key of a multi-line \\cite: title, authors, year, journal, takeaway and quartile, escaped, untrusted', async () => {
      const dir = await folder();
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'paper.tex'),
        'As shown \\cite{evil2020,\n    sandkuhler2023creatine} and \\cite{nokey2000}.\n\\bibliography{refs}\n',
      );
      const { text, hovers } = await hoverText(doc, positionOf(doc, 'sandkuhler2023creatine', 5));
      assert.match(text, /\*\*Creatine Supplementation and Cognitive Performance\*\*/u);
      assert.match(text, /Sandkühler, Julia, Müller, Anna/u);
      assert.match(text, /\*Nutrients\* · 2023 · Q1 journal \\\(SJR\\\)/u);
      // The takeaway comes from the recent result with the same DOI; its Markdown is shown as text.
      assert.match(
        text,
        /Takeaway: Creatine improved \\\*short\\-term\\\* memory &lt;b\\>\\\[1\\\]\\\(command:x\\\)&lt;\/b\\>\\\./u,
      );
      assert.match(text, /\[Open paper\]\(<https:\/\/consensus\.app\/papers\/creatine\/r-in\/>\)/u);
      const ours = hovers.find((h) => h.contents.some((c) => typeof c !== 'string' && c.value.includes('Creatine')));
      const md = ours?.contents[0] as vscode.MarkdownString | undefined;
      assert.ok(md && !md.isTrusted, 'the hover is trusted');
      assert.ok(
        ours?.range?.start.isEqual(positionOf(doc, 'sandkuhler2023creatine')),
        'the hover range is not the key',
      );

      const evil = (await hoverText(doc, positionOf(doc, 'evil2020', 2))).text;
      // (BibTeX reads < and > as the T1 ligatures ¡ and ¿.)
      assert.match(
        evil,
        /\\\*Bold\\\* \\\[click\\\]\\\(command:workbench\\\.action\\\.quit\\\) ¡img src=x onerror=alert\\\(1\\\)¿ &amp; \$\\\(alert\\\) more/u,
      );
      assert.doesNotMatch(evil, /\]\(command:/u);
      assert.doesNotMatch(evil, /<img/u);
      assert.doesNotMatch(evil, /javascript:/u, 'a javascript: url became a link');
      assert.match(
        (await hoverText(doc, positionOf(doc, 'nokey2000', 1))).text,
        /nokey2000.*is not in .*refs\\?\.bib/u,
      );
      assert.equal((await hoverText(doc, positionOf(doc, 'As shown', 1))).text.includes('Creatine'), false);
    });

    test('hover in Markdown [@a; @b] and Typst @key', async () => {
      const dir = await folder();
      const md = await openDoc(
        vscode.Uri.joinPath(dir, 'notes.md'),
        '---\nbibliography: refs.bib\n---\n\nShown [@evil2020;\n  @plain2019caffeine].\n',
      );
      assert.match(
        (await hoverText(md.doc, positionOf(md.doc, 'plain2019caffeine', 4))).text,
        /\*\*Caffeine Timing and Memory\*\*[\s\S]*Roe, Richard[\s\S]*2019/u,
      );
      const typ = await openDoc(
        vscode.Uri.joinPath(dir, 'doc.typ'),
        '#bibliography("refs.bib")\nAs @plain2019caffeine[p. 4] shows.\n',
      );
      assert.match(
        (await hoverText(typ.doc, positionOf(typ.doc, 'plain2019caffeine', 1))).text,
        /Caffeine Timing and Memory/u,
      );
    });

    test("hover's key table follows the file: an appended entry is found, an appended duplicate key does not win, a rewrite is read anew", async () => {
      const dir = await folder();
      const bib = vscode.Uri.joinPath(dir, 'refs.bib');
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'follow.tex'),
        'See \\cite{plain2019caffeine,new2025} and \\cite{sandkuhler2023creatine}.\n\\bibliography{refs}\n',
      );
      const title = async (key: string): Promise<string> =>
        (await hoverText(doc, positionOf(doc, key, 2))).text.match(/\*\*([^*]+)\*\*/u)?.[1] ?? '(no title)';
      assert.equal(await title('plain2019caffeine'), 'Caffeine Timing and Memory');
      assert.doesNotMatch((await hoverText(doc, positionOf(doc, 'new2025', 2))).text, /Appended Study/u);

      // An append (the table is extended): the new key is found; a second plain2019caffeine does not replace the first.
      const appended = `${BIB}\n@misc{new2025,\n  title = {Appended Study},\n  year = {2025}\n}\n\n@misc{Plain2019Caffeine,\n  title = {A Second Copy},\n  year = {2025}\n}\n`;
      await write(bib, appended);
      await eventually(async () => (await title('new2025')) === 'Appended Study', 'the appended entry is found');
      assert.equal(await title('plain2019caffeine'), 'Caffeine Timing and Memory');
      assert.equal(await title('sandkuhler2023creatine'), 'Creatine Supplementation and Cognitive Performance');

      // A rewrite in another order, a title changed and the appended entry gone: every key is looked up anew.
      await write(
        bib,
        `@misc{plain2019caffeine,\n  title = {Caffeine Timing Revised},\n  year = {2019}\n}\n\n${BIB.slice(0, BIB.indexOf('@misc{plain2019caffeine'))}`,
      );
      await eventually(
        async () => (await title('plain2019caffeine')) === 'Caffeine Timing Revised',
        'the rewritten entry is found',
      );
      assert.equal(await title('sandkuhler2023creatine'), 'Creatine Supplementation and Cognitive Performance');
      assert.doesNotMatch((await hoverText(doc, positionOf(doc, 'new2025', 2))).text, /Appended Study/u);
    });

    test('hover decodes only what it shows: an entry with a 1 MB abstract and 80 authors shows its title and six authors', async () => {
      const authors = Array.from({ length: 80 }, (_v, i) => `Author${i}, A.`).join(' and ');
      const abstract = 'The effect of {\\"u}ber $x^2$ on memory. '.repeat(26_000);
      const dir = await folder({
        'huge.bib': `@article{huge2024,\n  title = {Huge {\\"U}ber Entry},\n  author = {${authors}},\n  journal = {J},\n  year = {2024},\n  abstract = {${abstract}}\n}\n`,
      });
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'huge.tex'),
        'See \\cite{huge2024}.\n\\bibliography{huge}\n',
      );
      const { text } = await hoverText(doc, positionOf(doc, 'huge2024', 2));
      assert.match(text, /\*\*Huge Über Entry\*\*/u);
      assert.match(text, /Author0[\s\S]*Author5[\s\S]*et al/u);
      assert.doesNotMatch(text, /Author6/u);
    });

    test('a UTF-8 .bib of 2 MB or more is read in pieces: its parse, problems, hover and an insert are those of the whole text', async () => {
      const c = await testCore();
      c.recentPapers.clear();
      // A duplicate of an early key and an entry that uses the first piece's @string, both in the last piece.
      const late =
        '@article{big5,\n  title = {Again}\n}\n\n@article{late2024,\n  title = {Late {\\"U}ber Piece},\n  author = {李, 小龙 and Nguyễn, Văn},\n  journal = pj,\n  year = {2024}\n}\n';
      const text = `@string{pj = {Journal of Pieces}}\n\n${Array.from({ length: 6000 }, (_, i) => bigEntry(i)).join('\n')}\n${late}`;
      assert.ok(Buffer.byteLength(text) > 2.5 * (1 << 20), 'under 2.5 MB: too small to be read in pieces');
      const dir = await folder({ 'pieces.bib': text });
      const bibUri = vscode.Uri.joinPath(dir, 'pieces.bib');
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'pieces.tex'),
        'See \\cite{late2024}.\n\\bibliography{pieces}\n',
      );
      const [bib] = await c.bibliographies.find(doc);
      const loaded = await c.bibliographies.load(bib!);
      assert.ok((loaded.file.pieces?.length ?? 0) >= 2, 'read as one string, not in pieces');
      assert.equal(loaded.text, loaded.file.text);
      // plainFile also checks that the pieces hold exactly the text.
      assert.deepEqual(plainFile(loaded.file), plainFile(parseBibFile(text)));
      // The duplicate is reported at its own line, against the line of the first.
      const lineOf = (at: number): number => text.slice(0, at).split('\n').length - 1;
      const [firstLine, dupLine] = [lineOf(text.indexOf('@article{big5,')), lineOf(text.lastIndexOf('@article{big5,'))];
      await eventually(
        () =>
          vscode.languages
            .getDiagnostics(bibUri)
            .some(
              (d) =>
                d.message.includes(`Duplicate key big5 (also at line ${firstLine + 1})`) &&
                d.range.start.line === dupLine,
            ),
        'the duplicate key of the last piece, at its line',
      );
      const { text: shown } = await hoverText(doc, positionOf(doc, 'late2024', 2));
      assert.match(shown, /Late Über Piece/u);
      assert.match(shown, /李/u);
      assert.match(shown, /Journal of Pieces/u);
      // An insert appends to the bytes; the parse kept for the new file is the whole new text's, its end a piece.
      const edit = new vscode.WorkspaceEdit();
      const [key] = await c.bibliographies.addEntries(edit, loaded, [RECENT_NEW], doc);
      assert.ok(await c.bibliographies.apply(edit));
      const after = await c.bibliographies.load(bib!);
      const disk = new TextDecoder().decode(await vscode.workspace.fs.readFile(bibUri));
      assert.ok(disk.startsWith(text) && disk.includes(`@article{${key},`));
      assert.equal(after.file.pieces?.length, loaded.file.pieces!.length + 1);
      assert.deepEqual(plainFile(after.file), plainFile(parseBibFile(disk)));
      // An entry left open across a cut: that piece cannot be joined, and the whole text is parsed instead.
      const open = text.replace('@article{big3000,', '@article{open3000,\n  title = {never closed\n@article{big3000,');
      await write(bibUri, open);
      c.bibliographies.clearCache();
      const whole = await c.bibliographies.load(bib!);
      assert.equal(whole.file.pieces, undefined);
      assert.deepEqual(plainFile(whole.file), plainFile(parseBibFile(open)));
      assert.ok(whole.file.diagnostics.some((d) => d.code === 'unclosed' && d.key === 'open3000'));
    });

    test("Ctrl+click links: the paper's https URL, else doi.org; never javascript:, none for unknown keys", async () => {
      const dir = await folder();
      const { doc } = await openDoc(
        vscode.Uri.joinPath(dir, 'paper.tex'),
        '\\cite{evil2020,plain2019caffeine}\n\\citet{sandkuhler2023creatine} \\cite{nokey2000}\n\\bibliography{refs}\n',
      );
      const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri);
      const byKey = new Map(links.filter((l) => l.target).map((l) => [doc.getText(l.range), l.target!.toString(true)]));
      assert.equal(byKey.get('plain2019caffeine'), 'https://example.org/caffeine');
      assert.equal(byKey.get('sandkuhler2023creatine'), 'https://consensus.app/papers/creatine/r-in/');
      assert.equal(byKey.has('evil2020'), false, 'a javascript: url became a link');
      assert.equal(byKey.has('nokey2000'), false);
      // Without the recent result, the DOI.
      (await testCore()).recentPapers.clear();
      const links2 = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', doc.uri);
      const sand = links2.find((l) => doc.getText(l.range) === 'sandkuhler2023creatine');
      assert.equal(sand?.target?.toString(true), 'https://doi.org/10.3390/nu15000001');
    });
  });
}
