/**
 * Citations in the real VS Code: Insert Citation into .tex/.md/.qmd/.typ/.txt documents of
 * the test workspace, bibliographies declared / in _quarto.yml / the default / chosen, created and appended, entries
 * reused by DOI, citations extended, Undo, an unsaved open .bib, a malformed entry, Tidy Bibliography, Copy BibTeX
 * and Copy Reference, the palette Quick Pick (with the search fallback against the emulator) and the results view.
 */
import * as assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { CoreInternals } from '../../src/composition/core';
import type { CitationCommandResult } from '../../src/citations/commandSupport';
import type { CitePaper } from '../../src/citations/types';
import { Commands, Settings } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import type { ResultNode } from '../../src/search/resultsTree';
import { bibTrustSuite } from './bibTrust.test';
import {
  api,
  control,
  eventually,
  openDoc,
  readDisk,
  setUserSettings,
  sleep,
  testCore,
  useEmulatorKeepingKey,
  workspaceDir,
  writeFile as write,
} from './support';

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

const PAPER_A: CitePaper = {
  id: 'pa-1',
  title: 'Creatine supplementation and cognitive performance: a randomized trial',
  authors: ['Julia Sandkühler', 'Anna Müller'],
  journal_name: 'Nutrients',
  publish_year: 2023,
  volume: '15',
  pages: '1-12',
  doi: '10.3390/nu15000001',
  url: 'https://example.org/papers/pa-1',
};
const PAPER_B: CitePaper = {
  id: 'pb-2',
  title: 'Sleep & memory in adolescents_a 50% effect?',
  authors: ['Ólafur Þórsson', 'Li Wei'],
  journal_name: 'Journal of Sleep Research',
  publish_year: 2021,
  doi: '10.1111/jsr.2021.42',
};
const PAPER_C: CitePaper = {
  id: 'pc-3',
  title: 'DNA methylation in mRNA vaccines',
  authors: ['Maria Garcia'],
  journal_name: 'Vaccine',
  publish_year: 2022,
  doi: '10.1016/vac.2022.7',
};

function root(): vscode.Uri {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('The extension-host run opens a workspace folder (RESEARCH_DESK_WORKSPACE).');
  return f.uri;
}

/** A fresh folder of the workspace for one test. */
const freshDir = (): vscode.Uri => workspaceDir('cite-tests');

/** The .bib's current text: its open buffer (unsaved edits included), else the disk. */
async function bibText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  return open ? open.getText() : readDisk(uri);
}

const entryCount = (bib: string | undefined): number => (bib ?? '').match(/^@\w+\{/gmu)?.length ?? 0;

/** Presses Enter on the quick input (after letting the window receive the items) until `done` holds. */
async function acceptUntil(done: () => boolean, what: string): Promise<void> {
  await sleep(300);
  for (let i = 0; i < 50 && !done(); i++) {
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await sleep(100);
  }
  assert.ok(done(), `the quick input did not move on: ${what}`);
}

async function cite(...args: unknown[]): Promise<CitationCommandResult> {
  const r = await run<CitationCommandResult>(Commands.insertCitation, ...args);
  assert.ok(r, 'Insert Citation returned nothing');
  return r;
}

export function citationsSuite(): void {
  suite('Citations (Insert Citation, bibliographies, Tidy, Copy) in the real VS Code', () => {
    let restore: (() => Promise<void>) | undefined;
    let savedConfirm: CoreInternals['bibliographies']['confirmWrite'] | undefined;
    /** The writer's answers to "write to this new file?" (yes here; bibTrust.test.ts tests both answers). */
    const asked: string[] = [];

    suiteSetup(async () => {
      const c = await testCore();
      c.bibliographies.clearCache();
      savedConfirm = c.bibliographies.confirmWrite;
      c.bibliographies.confirmWrite = (uri) => {
        asked.push(uri.path);
        return Promise.resolve(true);
      };
      restore = await setUserSettings({
        [Settings.citationsLatexCommand]: undefined,
        [Settings.citationsAskLocator]: undefined,
        [Settings.citationsKeyScheme]: undefined,
        [Settings.citationsTitleProtection]: undefined,
        [Settings.citationsDefaultBibliography]: 'cite-tests/default-references.bib',
      });
    });

    suiteTeardown(async () => {
      await vscode.commands.executeCommand('workbench.action.files.saveAll');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      if (savedConfirm) (await testCore()).bibliographies.confirmWrite = savedConfirm;
      await restore?.();
    });

    test('LaTeX: \\bibliography{refs} next to the document; the entry is appended and `\\cite{old}` is extended to `\\cite{old,key}`', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'refs.bib');
      await write(bib, '@article{old2020,\n  title = {Old},\n  author = {Old, A.},\n  year = {2020}\n}\n');
      const editor = await openDoc(
        vscode.Uri.joinPath(dir, 'paper.tex'),
        'Intro \\cite{old2020}| more.\n\\bibliography{refs}\n',
      );
      const r = await cite(PAPER_A);
      assert.equal(r.done, true, r.message);
      assert.deepEqual(r.keys, ['sandkuhler2023creatine']);
      assert.equal(r.added, 1);
      assert.equal(r.bib?.toString(), bib.toString());
      assert.equal(
        editor.document.getText(),
        'Intro \\cite{old2020,sandkuhler2023creatine} more.\n\\bibliography{refs}\n',
      );
      const text = await bibText(bib);
      assert.match(text ?? '', /^@article\{old2020,/u);
      assert.match(
        text ?? '',
        /\n\n@article\{sandkuhler2023creatine,\n\s+author = .*\n\s+title = \{Creatine supplementation/u,
      );
      assert.match(text ?? '', /author = \{Sandk\{\\"\{u\}\}hler, Julia and M\{\\"\{u\}\}ller, Anna\}/u);
      assert.match(text ?? '', /doi = \{10\.3390\/nu15000001\}/u);
      assert.equal(entryCount(text), 2);
      await eventually(async () => (await readDisk(bib)) === text, 'the .bib (no unsaved changes before) to be saved');
      // The cursor is after the citation: typing goes on after it.
      assert.equal(
        editor.document.offsetAt(editor.selection.active),
        'Intro \\cite{old2020,sandkuhler2023creatine}'.length,
      );
    });

    test('LaTeX: the citep setting; several papers in one citation; the same DOI again reuses the entry (no duplicate)', async () => {
      const undo = await setUserSettings({ [Settings.citationsLatexCommand]: 'citep' });
      try {
        const dir = freshDir();
        const bib = vscode.Uri.joinPath(dir, 'lib.bib');
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'main.tex'), '\\addbibresource{lib.bib}\nText |\n');
        const r1 = await cite([PAPER_A, PAPER_B]);
        assert.equal(r1.done, true, r1.message);
        assert.equal(r1.keys?.length, 2);
        assert.equal(editor.document.lineAt(1).text, `Text~\\citep{${r1.keys[0]},${r1.keys[1]}}`);
        assert.equal(entryCount(await bibText(bib)), 2);
        // Same DOI, different title spelling: reused.
        const end = editor.document.lineAt(1).range.end;
        editor.selection = new vscode.Selection(end.translate(0, 0), end);
        await editor.edit((b) => b.insert(end, '. Again '));
        const e2 = editor.document.lineAt(1).range.end;
        editor.selection = new vscode.Selection(e2, e2);
        const r2 = await cite({
          ...PAPER_A,
          title: 'CREATINE supplementation and cognitive performance (a randomized trial)',
        });
        assert.deepEqual(r2.keys, [r1.keys[0]]);
        assert.equal(r2.added, 0);
        assert.equal(entryCount(await bibText(bib)), 2, 'the entry was duplicated');
        assert.match(editor.document.lineAt(1).text, new RegExp(`Again~\\\\citep\\{${r1.keys[0]}\\}$`, 'u'));
      } finally {
        await undo();
      }
    });

    test("LaTeX parts: `% !TEX root = ../main.tex` and `\\documentclass[../main]{subfiles}` use the main file's bibliography", async () => {
      const dir = freshDir();
      await write(
        vscode.Uri.joinPath(dir, 'main.tex'),
        '\\documentclass{article}\n\\begin{document}\n\\input{ch/one}\n\\bibliography{bib/thesis}\n\\end{document}\n',
      );
      const one = await openDoc(vscode.Uri.joinPath(dir, 'ch', 'one.tex'), '% !TEX root = ../main.tex\nChapter |\n');
      const r = await cite(PAPER_A);
      assert.equal(r.bib?.toString(), vscode.Uri.joinPath(dir, 'bib', 'thesis.bib').toString());
      assert.equal(one.document.lineAt(1).text, 'Chapter~\\cite{sandkuhler2023creatine}');
      const two = await openDoc(
        vscode.Uri.joinPath(dir, 'ch', 'two.tex'),
        '\\documentclass[../main]{subfiles}\n\\begin{document}\nTwo |\n\\end{document}\n',
      );
      const r2 = await cite(PAPER_A);
      assert.equal(r2.bib?.toString(), vscode.Uri.joinPath(dir, 'bib', 'thesis.bib').toString());
      assert.equal(r2.added, 0);
      assert.equal(two.document.lineAt(2).text, 'Two~\\cite{sandkuhler2023creatine}');
    });

    test('Markdown: front matter bibliography created on first use; `[@a]` extended to `[@a; @b]`', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'bib', 'md.bib');
      const editor = await openDoc(
        vscode.Uri.joinPath(dir, 'notes.md'),
        '---\ntitle: Notes\nbibliography: bib/md.bib\n---\n\nClaim |.\n',
      );
      const r1 = await cite(PAPER_A);
      assert.equal(r1.done, true, r1.message);
      assert.ok(
        (await bibText(bib))?.includes('@article{sandkuhler2023creatine,'),
        'the declared .bib was not created with the entry',
      );
      assert.ok(asked.includes(bib.path), 'created without asking');
      assert.equal(editor.document.lineAt(5).text, 'Claim [@sandkuhler2023creatine].');
      // Cursor right after `]`: the next paper joins the citation.
      const r2 = await cite(PAPER_C);
      assert.equal(r2.done, true, r2.message);
      assert.equal(editor.document.lineAt(5).text, `Claim [@sandkuhler2023creatine; @${r2.keys![0]}].`);
      assert.equal(entryCount(await bibText(bib)), 2);
      // Title protection (acronyms): DNA and mRNA braced.
      assert.match((await bibText(bib)) ?? '', /title = \{\{DNA\} methylation in \{mRNA\} vaccines\}/u);
    });

    test('Quarto: the bibliography of _quarto.yml in a parent folder', async () => {
      const dir = freshDir();
      await write(vscode.Uri.joinPath(dir, '_quarto.yml'), 'project:\n  type: book\nbibliography: project.bib\n');
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'chapters', 'one.qmd'), '# One\n\nSee |\n');
      const r = await cite(PAPER_B);
      assert.equal(r.done, true, r.message);
      assert.equal(r.bib?.toString(), vscode.Uri.joinPath(dir, 'project.bib').toString());
      assert.equal(editor.document.lineAt(2).text, `See [@${r.keys![0]}]`);
      const text = (await bibText(vscode.Uri.joinPath(dir, 'project.bib'))) ?? '';
      // Special characters escaped; accented letters as macros, Þ as UTF-8 (pandoc drops {\TH}), braced after \relax as
      // a name's first letter (one letter to BibTeX).
      assert.match(text, /Sleep \\& memory in adolescents\\_a 50\\% effect\?/u);
      assert.ok(text.includes("author = {{\\relax{}Þ}{\\'{o}}rsson, {\\'{O}}lafur and Wei, Li}"), text);
    });

    test('Typst: #bibliography("refs.bib") → `@key`, a second paper → `@a @b`', async () => {
      const dir = freshDir();
      const editor = await openDoc(
        vscode.Uri.joinPath(dir, 'doc.typ'),
        '= Doc\nAs shown|.\n#bibliography("refs.bib")\n',
      );
      const r = await cite(PAPER_A);
      assert.equal(r.done, true, r.message);
      assert.equal(editor.document.lineAt(1).text, 'As shown @sandkuhler2023creatine.');
      const r2 = await cite(PAPER_C);
      assert.equal(editor.document.lineAt(1).text, `As shown @sandkuhler2023creatine @${r2.keys![0]}.`);
      const text = await bibText(vscode.Uri.joinPath(dir, 'refs.bib'));
      assert.equal(entryCount(text), 2);
      // Written in the form Typst reads: UTF-8, not LaTeX accent macros.
      assert.match(text ?? '', /author = \{Sandkühler, Julia and Müller, Anna\}/u);
    });

    test('a new entry with letters pdflatex cannot print (Cyrillic, Chinese) in a LaTeX document: the writer is told once, naming them and BibTeX or Biber; not for Markdown', async () => {
      const notes = (await testCore()).bibliographies.pdflatexNotes;
      const dir = freshDir();
      const paper: CitePaper = {
        id: 'pr-1',
        title: 'Sleep in Moscow',
        authors: ['Иван Иванов', '李伟', 'Anna Smith'],
        journal_name: 'Sleep',
        publish_year: 2020,
        doi: '10.5665/sleep.2020.1',
      };
      notes.last = undefined;
      await openDoc(vscode.Uri.joinPath(dir, 'md.md'), '---\nbibliography: refs.bib\n---\nClaim |.\n');
      assert.equal((await cite(paper)).done, true);
      assert.equal(notes.last, undefined, 'a Markdown document is built by pandoc, which prints every script');
      await openDoc(vscode.Uri.joinPath(dir, 'bibtex.tex'), 'Claim |.\n\\bibliography{refs}\n');
      assert.equal((await cite({ ...paper, id: 'pr-2', doi: '10.5665/sleep.2020.2' })).done, true);
      assert.match(notes.last ?? '', /И.*李|李.*И/u);
      assert.match(notes.last ?? '', /Cyrillic/u);
      assert.match(notes.last ?? '', /BibTeX reads them/u);
      notes.last = undefined;
      await cite({ ...paper, id: 'pr-3', doi: '10.5665/sleep.2020.3' });
      assert.equal(notes.last, undefined, 'told once per document');
      await openDoc(
        vscode.Uri.joinPath(dir, 'biber.tex'),
        '\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\nClaim |.\n',
      );
      assert.equal(
        (await cite({ ...paper, id: 'pr-4', doi: '10.5665/sleep.2020.4', authors: ['Nguyễn Văn An'] })).done,
        true,
      );
      assert.match(notes.last ?? '', /ễ/u, 'Biber hands pdflatex ễ as UTF-8');
      assert.match(notes.last ?? '', /Biber reads them/u);
    });

    test('no declaration: the default setting (created); empty default: the writer picks a file', async () => {
      const dir = freshDir();
      const def = vscode.Uri.joinPath(root(), 'cite-tests', 'default-references.bib');
      const before = entryCount(await bibText(def));
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'plain.md'), 'Nothing declared |\n');
      const r = await cite(PAPER_C);
      assert.equal(r.done, true, r.message);
      assert.equal(r.bib?.toString(), def.toString());
      assert.equal(entryCount(await bibText(def)), before + 1);
      assert.match(editor.document.getText(), /\[@garcia2022dna\]/u);
      // "Declare It" (offered in a notification): front matter with the path relative to the document.
      assert.equal(await (await testCore()).citationCommands.declare(editor.document, def), true);
      assert.match(
        editor.document.getText(),
        /^---\nbibliography: \.\.\/default-references\.bib\n---\n\nNothing declared \[@garcia2022dna\]/u,
      );

      const undo = await setUserSettings({ [Settings.citationsDefaultBibliography]: '' });
      const c = await testCore();
      const saved = c.bibliographies.pick;
      const chosen = vscode.Uri.joinPath(dir, 'chosen.bib');
      let asked = 0;
      c.bibliographies.pick = () => {
        asked++;
        return Promise.resolve(chosen);
      };
      try {
        const editor2 = await openDoc(vscode.Uri.joinPath(dir, 'other.md'), 'Asked |\n');
        const r2 = await cite(PAPER_A);
        assert.equal(r2.done, true, r2.message);
        assert.equal(r2.bib?.toString(), chosen.toString());
        assert.match(editor2.document.getText(), /Asked \[@sandkuhler2023creatine\]/u);
        // Remembered for this document: not asked again.
        await cite(PAPER_B);
        assert.equal(asked, 1);
        // Cancelled: nothing is written.
        c.bibliographies.pick = () => Promise.resolve(undefined);
        const editor3 = await openDoc(vscode.Uri.joinPath(dir, 'third.md'), 'Cancel |\n');
        const r3 = await cite(PAPER_A);
        assert.equal(r3.done, false);
        assert.equal(editor3.document.getText(), 'Cancel \n');
      } finally {
        c.bibliographies.pick = saved;
        await undo();
      }
    });

    test('a missed "Declare It" stays reachable: the status bar offers it while the document is active; the command writes it; a declaration by hand withdraws it', async () => {
      const c = await testCore();
      const offers = c.citationCommands.declarations;
      const dir = freshDir();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'later.md'), 'Declare later |\n');
      const r = await cite(PAPER_B);
      assert.equal(r.done, true, r.message);
      assert.match(r.bib?.path ?? '', /default-references\.bib$/u);
      await eventually(() => offers.statusItem().visible, 'the status-bar offer');
      assert.match(offers.statusItem().text, /Declare .*default-references\.bib/u);
      // Another document: not offered there; back to the draft: offered again.
      await openDoc(vscode.Uri.joinPath(dir, 'other.md'), 'Other |\n');
      await eventually(() => !offers.statusItem().visible, 'no offer for another document');
      await vscode.window.showTextDocument(editor.document);
      await eventually(() => offers.statusItem().visible, 'the offer back with its document');
      assert.equal(await run<boolean>(Commands.declareBibliography), true);
      assert.match(editor.document.getText(), /^---\nbibliography: \.\.\/default-references\.bib\n---\n/u);
      await eventually(() => !offers.statusItem().visible, 'the offer withdrawn once declared');
      const declared = editor.document.getText();
      assert.equal(await run<boolean>(Commands.declareBibliography), false, 'declared twice');
      assert.equal(editor.document.getText(), declared);

      // Declared by hand: the offer goes.
      const hand = await openDoc(vscode.Uri.joinPath(dir, 'hand.md'), 'By hand |\n');
      assert.equal((await cite(PAPER_B)).done, true);
      await eventually(() => offers.statusItem().visible, 'the offer for the second document');
      const edit = new vscode.WorkspaceEdit();
      edit.insert(hand.document.uri, new vscode.Position(0, 0), '---\nbibliography: mine.bib\n---\n\n');
      assert.equal(await vscode.workspace.applyEdit(edit), true);
      await eventually(() => !offers.statusItem().visible, 'the offer withdrawn after a declaration by hand');
    });

    test('the key scheme and title protection settings shape new entries (existing ones keep their keys)', async () => {
      const undo = await setUserSettings({
        [Settings.citationsKeyScheme]: '{author}_{year}',
        [Settings.citationsTitleProtection]: 'all',
      });
      try {
        const dir = freshDir();
        const bib = vscode.Uri.joinPath(dir, 'k.bib');
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'k.md'), '---\nbibliography: k.bib\n---\nK |\n');
        const r = await cite([PAPER_C, { ...PAPER_C, doi: '10.1016/other', title: 'Another 2022 paper by Garcia' }]);
        assert.deepEqual(r.keys, ['garcia_2022', 'garcia_2022a']);
        assert.equal(editor.document.lineAt(3).text, 'K [@garcia_2022; @garcia_2022a]');
        assert.match((await bibText(bib)) ?? '', /title = \{\{DNA methylation in mRNA vaccines\}\}/u);
      } finally {
        await undo();
      }
    });

    test('Undo in the document removes the citation; the entry stays in the .bib, written to its bytes (uncited); a .bib with unsaved changes is edited with the document, one Undo for both', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'u.bib');
      await write(bib, '');
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'u.tex'), '\\bibliography{u}\nX |\n');
      const r = await cite(PAPER_A);
      assert.equal(r.done, true, r.message);
      assert.equal(editor.document.lineAt(1).text, 'X~\\cite{sandkuhler2023creatine}');
      assert.equal(
        entryCount(await readDisk(bib)),
        1,
        `the entry is not on disk: ${JSON.stringify(await readDisk(bib))}, buffer ${JSON.stringify(vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString())?.getText())}`,
      );
      assert.equal(
        vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString())?.isDirty ?? false,
        false,
        'the .bib was left as an unsaved buffer',
      );
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand('undo');
      await eventually(() => editor.document.lineAt(1).text === 'X ', 'the citation to be undone');
      assert.equal(entryCount(await readDisk(bib)), 1, 'the entry on disk changed');

      // The writer has unsaved changes in the .bib: it is edited in its buffer, with the document.
      const bib2 = vscode.Uri.joinPath(dir, 'u2.bib');
      await write(bib2, '');
      const bibDoc = await vscode.workspace.openTextDocument(bib2);
      const bibEditor = await vscode.window.showTextDocument(bibDoc, { preview: false });
      await bibEditor.edit((b) => b.insert(new vscode.Position(0, 0), '% mine\n'));
      const editor2 = await openDoc(vscode.Uri.joinPath(dir, 'u2.tex'), '\\bibliography{u2}\nY |\n');
      const r2 = await cite(PAPER_A);
      assert.equal(r2.done, true, r2.message);
      assert.equal(
        entryCount(bibDoc.getText()),
        1,
        `the entry is not in the buffer: ${JSON.stringify(bibDoc.getText())}, disk ${JSON.stringify(await readDisk(bib2))}`,
      );
      assert.equal(await readDisk(bib2), '', "the writer's unsaved .bib was saved behind their back");
      await vscode.window.showTextDocument(editor2.document);
      await vscode.commands.executeCommand('undo');
      await eventually(() => editor2.document.lineAt(1).text === 'Y ', 'the citation to be undone');
      await eventually(() => entryCount(bibDoc.getText()) === 0, 'the entry to be undone with it');
      await vscode.commands.executeCommand('redo');
      await eventually(
        () => editor2.document.lineAt(1).text === 'Y~\\cite{sandkuhler2023creatine}',
        'Redo of the citation',
      );
      await eventually(() => entryCount(bibDoc.getText()) === 1, 'Redo of the entry');
    });

    test('a .bib changed on disk after it was read, keeping its size and time: every byte is checked before the append, and the citation is computed again from the file as it is now', async () => {
      const c = await testCore();
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 's.bib');
      const editor = await openDoc(vscode.Uri.joinPath(dir, 's.tex'), '\\bibliography{s}\nS |\n');
      // A time with whole milliseconds, which utimes sets back exactly.
      const time = new Date(Date.now() - 60_000);
      await write(bib, '@misc{aaaaaaaaaaaaaaaaaaaaaa, title = {Alpha}}\n');
      utimesSync(bib.fsPath, time, time);
      const before = await c.bibliographies.load({ uri: bib, source: 'declared' });
      assert.equal(before.file.entries[0]?.key, 'aaaaaaaaaaaaaaaaaaaaaa');
      // Another program takes the key the new entry would get, in the same number of bytes, and sets the time back.
      const changed = '@misc{sandkuhler2023creatine, title = {Alpha}}\n';
      writeFileSync(bib.fsPath, changed);
      utimesSync(bib.fsPath, time, time);
      const r = await cite(PAPER_A);
      assert.equal(r.done, true, r.message);
      assert.equal(editor.document.lineAt(1).text, 'S~\\cite{sandkuhler2023creatinea}');
      const after = (await readDisk(bib)) ?? '';
      assert.ok(after.startsWith(changed), `the other program's bytes were not kept: ${JSON.stringify(after)}`);
      assert.match(after.slice(changed.length), /^\n@article\{sandkuhler2023creatinea,/u);
    });

    test('an open .bib with unsaved changes is read from its buffer: the unsaved key is taken into account', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'open.bib');
      await write(bib, '@misc{first2000,\n  title = {First}\n}\n');
      const bibDoc = await vscode.workspace.openTextDocument(bib);
      const bibEditor = await vscode.window.showTextDocument(bibDoc, { preview: false });
      // The writer typed an entry with the key the paper would get, and did not save.
      await bibEditor.edit((b) =>
        b.insert(
          new vscode.Position(3, 0),
          '\n@misc{sandkuhler2023creatine,\n  title = {Unsaved other paper},\n  year = {1999}\n}\n',
        ),
      );
      assert.ok(bibDoc.isDirty);
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'o.tex'), '\\bibliography{open}\nY |\n');
      const r = await cite(PAPER_A);
      assert.equal(r.done, true, r.message);
      assert.deepEqual(r.keys, ['sandkuhler2023creatinea']);
      const text = bibDoc.getText();
      assert.ok(text.includes('Unsaved other paper'), 'the unsaved entry was lost');
      assert.ok(text.includes('@article{sandkuhler2023creatinea,'));
      assert.equal(entryCount(text), 3);
      assert.equal(editor.document.lineAt(1).text, 'Y~\\cite{sandkuhler2023creatinea}');
      assert.ok(bibDoc.isDirty, 'the writer’s unsaved .bib was saved behind their back');
    });

    test('a malformed entry: a diagnostic on the .bib, and the rest still works', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'bad.bib');
      await write(
        bib,
        '@article{broken2019,\n  title = {Never closed,\n  year = {2019}\n\n@article{good2020,\n  title = {Good},\n  doi = {10.1/good}\n}\n',
      );
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'b.md'), '---\nbibliography: bad.bib\n---\nZ |\n');
      const r = await cite({ title: 'Good', doi: '10.1/GOOD', publish_year: 2020 });
      assert.equal(r.done, true, r.message);
      assert.deepEqual(r.keys, ['good2020'], 'the entry after the broken one was not found');
      assert.equal(r.added, 0);
      assert.equal(editor.document.lineAt(3).text, 'Z [@good2020]');
      await eventually(() => vscode.languages.getDiagnostics(bib).length > 0, 'a diagnostic on bad.bib');
      const d = vscode.languages.getDiagnostics(bib)[0]!;
      assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
      assert.equal(d.range.start.line, 0);
      assert.match(d.message, /broken2019 is not closed/u);
      // A new paper is not appended after it: BibTeX would read it as part of the unclosed entry. The writer is told.
      const before = await readDisk(bib);
      const r2 = await cite(PAPER_C);
      assert.equal(r2.done, false);
      assert.match(
        r2.message ?? '',
        /entry broken2019 \(line 1\) is not closed, so BibTeX would read what follows as part of it/u,
      );
      assert.equal(await readDisk(bib), before);
      assert.equal(editor.document.lineAt(3).text, 'Z [@good2020]');
      // Tidy refuses while the file has errors.
      await vscode.window.showTextDocument(editor.document);
      const t = await run<CitationCommandResult>(Commands.tidyBibliography);
      assert.equal(t?.done, false);
      assert.match(t.message ?? '', /1 error/u);
    });

    test('a .bib opened and edited by the writer gets diagnostics as they type', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'typed.bib');
      await write(bib, '@misc{a,\n  title = {A}\n}\n');
      const doc = await vscode.workspace.openTextDocument(bib);
      const ed = await vscode.window.showTextDocument(doc);
      await ed.edit((b) => b.insert(new vscode.Position(3, 0), '@misc{b,\n  title = {B\n'));
      await eventually(
        () => vscode.languages.getDiagnostics(bib).some((d) => /b is not closed/u.test(d.message)),
        'a diagnostic while typing',
      );
      await ed.edit((b) => b.insert(new vscode.Position(5, 0), '}}\n'));
      await eventually(() => vscode.languages.getDiagnostics(bib).length === 0, 'the diagnostic to go once fixed');
    });

    test('Tidy Bibliography: duplicates by DOI removed, entries sorted, uncited keys reported; Undo restores', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'tidy.bib');
      const original =
        '@article{zeta2020,\n  title = {Z},\n  doi = {10.1/z}\n}\n\n@article{alpha2019,\n  title = {A},\n  doi = {10.1/a}\n}\n\n@article{alphaDup,\n  title = {A again},\n  doi = {https://doi.org/10.1/A}\n}\n\n@misc{unused2001,\n  title = {U}\n}\n';
      await write(bib, original);
      await write(vscode.Uri.joinPath(dir, 'other.md'), '---\nbibliography: tidy.bib\n---\nAlso [@zeta2020].\n');
      await openDoc(vscode.Uri.joinPath(dir, 't.tex'), '\\bibliography{tidy}\n\\cite{alpha2019}|\n');
      const r = await run<CitationCommandResult>(Commands.tidyBibliography);
      assert.equal(r?.done, true, r?.message);
      assert.deepEqual(
        r.removed?.map((x) => [x.key, x.keptKey]),
        [['alphaDup', 'alpha2019']],
      );
      assert.deepEqual(r.uncited, ['unused2001']);
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString());
      assert.ok(doc, 'the tidied .bib is not open');
      const keys = [...doc.getText().matchAll(/^@\w+\{([^,]+),/gmu)].map((m) => m[1]);
      assert.deepEqual(keys, ['alpha2019', 'unused2001', 'zeta2020']);
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('undo');
      await eventually(() => doc.getText() === original, 'Undo to restore the .bib');
    });

    test('Copy BibTeX and Copy Reference (APA) put the text on the clipboard', async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const b = await run<CitationCommandResult>(Commands.copyBibtex, PAPER_B);
      assert.equal(b?.done, true);
      const clip = await vscode.env.clipboard.readText();
      assert.equal(clip, b.value);
      assert.match(clip, /^@article\{thorsson2021sleep,\n/u);
      assert.match(clip, /journal = \{Journal of Sleep Research\}/u);
      const r = await run<CitationCommandResult>(Commands.copyReference, [PAPER_A, PAPER_C]);
      assert.equal(r?.done, true);
      const apa = await vscode.env.clipboard.readText();
      assert.equal(apa.split('\n').length, 2);
      assert.match(
        apa,
        /^Sandkühler, J\., & Müller, A\. \(2023\)\. Creatine supplementation and cognitive performance: a randomized trial\. Nutrients, 15, 1–12\. https:\/\/doi\.org\/10\.3390\/nu15000001/u,
      );
    });

    test('in a .bib itself, Insert Citation adds the entry (no citation text); the editor shows the file as written', async () => {
      const dir = freshDir();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'self.bib'), '@misc{x,\n  title = {X}\n}\n|');
      const r = await cite([PAPER_B, PAPER_B]);
      assert.equal(r.done, true, r.message);
      assert.deepEqual(r.keys, ['thorsson2021sleep', 'thorsson2021sleep']);
      const text = (await readDisk(editor.document.uri)) ?? '';
      assert.equal(entryCount(text), 2);
      assert.ok(text.startsWith('@misc{x,\n  title = {X}\n}\n\n@article{thorsson2021sleep,\n'), text);
      await eventually(
        () => editor.document.getText() === text && !editor.document.isDirty,
        'the editor to show the file',
      );
    });

    test('a plain-text document gets the APA reference; no bibliography is written', async () => {
      const dir = freshDir();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'notes.txt'), 'Ref: |\n');
      const r = await cite(PAPER_C);
      assert.equal(r.done, true, r.message);
      assert.equal(r.bib, undefined);
      assert.match(
        editor.document.lineAt(0).text,
        /^Ref: Garcia, M\. \(2022\)\. DNA methylation in mRNA vaccines\. Vaccine\. https:\/\/doi\.org\/10\.1016\/vac\.2022\.7$/u,
      );
    });

    test('the locator setting asks for a page: `\\cite[p.~12]{key}`, `[@key, p. 12]`; Escape cancels', async () => {
      const undo = await setUserSettings({ [Settings.citationsAskLocator]: true });
      const c = await testCore();
      const saved = c.citations.askLocator;
      try {
        c.citations.askLocator = () => Promise.resolve('12');
        const dir = freshDir();
        const tex = await openDoc(vscode.Uri.joinPath(dir, 'l.tex'), '\\bibliography{l}\nP |\n');
        await cite(PAPER_A);
        assert.equal(tex.document.lineAt(1).text, 'P~\\cite[p.~12]{sandkuhler2023creatine}');
        const md = await openDoc(vscode.Uri.joinPath(dir, 'l.md'), '---\nbibliography: l.bib\n---\nQ |\n');
        await cite(PAPER_A);
        assert.equal(md.document.lineAt(3).text, 'Q [@sandkuhler2023creatine, p. 12]');
        c.citations.askLocator = () => Promise.resolve(undefined);
        const r = await cite(PAPER_B);
        assert.equal(r.done, false);
        assert.equal(md.document.lineAt(3).text, 'Q [@sandkuhler2023creatine, p. 12]');
      } finally {
        c.citations.askLocator = saved;
        await undo();
      }
    });

    test('a 10,000-entry bibliography: appended, then reused by DOI (times printed, not asserted)', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'big.bib');
      const parts: string[] = [];
      for (let i = 0; i < 10_000; i++)
        parts.push(
          `@article{smith${i},\n  author = {Smith, Ann and Jones, Bo},\n  title = {Paper number ${i} on things},\n  journal = {Journal},\n  year = {${1990 + (i % 30)}},\n  doi = {10.1000/x${i}}\n}\n`,
        );
      await write(bib, parts.join('\n'));
      const c = await testCore();
      c.citationCommands.prepared = undefined;
      const t0 = performance.now();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'big.tex'), '\\bibliography{big}\nB |\n');
      // The document became active: its bibliography is read and parsed in the background.
      await eventually(() => c.citationCommands.prepared !== undefined, 'the bibliography prepared in the background');
      await (c.citationCommands.prepared as Promise<unknown> | undefined);
      const preparedMs = performance.now() - t0;
      const times: number[] = [];
      const papers = [
        PAPER_A,
        PAPER_B,
        PAPER_C,
        { title: 'Paper number 77 on things', doi: '10.1000/X77', publish_year: 1997 },
      ];
      for (const p of papers) {
        const t = performance.now();
        const r = await cite(p);
        times.push(performance.now() - t);
        assert.equal(r.done, true, r.message);
      }
      assert.match(
        editor.document.lineAt(1).text,
        /^B~\\cite\{sandkuhler2023creatine,thorsson2021sleep,garcia2022dna,smith77\}$/u,
      );
      assert.equal(entryCount(await bibText(bib)), 10_003);
      console.log(
        `    (10,000-entry .bib prepared in the background ${preparedMs.toFixed(0)} ms after opening; Insert Citation: ${times.map((x) => x.toFixed(0)).join(', ')} ms — appends, a reuse)`,
      );
    });

    test('a read-only document: a clear message, nothing written anywhere', async () => {
      const text = '---\nbibliography: ro.bib\n---\nRead only \n';
      const provider: vscode.FileSystemProvider = {
        onDidChangeFile: new vscode.EventEmitter<vscode.FileChangeEvent[]>().event,
        watch: () => new vscode.Disposable(() => undefined),
        stat: (uri) => {
          if (uri.path !== '/doc.md') throw vscode.FileSystemError.FileNotFound(uri);
          return {
            type: vscode.FileType.File,
            ctime: 0,
            mtime: 0,
            size: text.length,
            permissions: vscode.FilePermission.Readonly,
          };
        },
        readDirectory: () => [],
        createDirectory: () => undefined,
        readFile: (uri) => {
          if (uri.path !== '/doc.md') throw vscode.FileSystemError.FileNotFound(uri);
          return new TextEncoder().encode(text);
        },
        writeFile: (uri) => {
          throw vscode.FileSystemError.NoPermissions(uri);
        },
        delete: (uri) => {
          throw vscode.FileSystemError.NoPermissions(uri);
        },
        rename: (uri) => {
          throw vscode.FileSystemError.NoPermissions(uri);
        },
      };
      const reg = vscode.workspace.registerFileSystemProvider('cite-ro-test', provider, { isReadonly: true });
      try {
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse('cite-ro-test:/doc.md'));
        const editor = await vscode.window.showTextDocument(doc);
        editor.selection = new vscode.Selection(3, 10, 3, 10);
        const r = await cite(PAPER_A);
        assert.equal(r.done, false);
        assert.match(r.message ?? '', /read-only/u);
        assert.equal(doc.getText(), text);
      } finally {
        await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
        reg.dispose();
      }
    });

    test('no text editor: a clear message, nothing written', async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await sleep(100);
      const r = await cite(PAPER_A);
      assert.equal(r.done, false);
      assert.match(r.message ?? '', /Open the document to cite into/u);
    });

    test('the palette Insert Citation: one click (Enter) on a row cites that paper; a title button offers several', async () => {
      const c = await testCore();
      c.recentPapers.remember([PAPER_B, PAPER_C]);
      const dir = freshDir();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'one.md'), '---\nbibliography: one.bib\n---\nO |\n');
      const pending = run<CitationCommandResult>(Commands.insertCitation);
      await eventually(
        () => c.citationCommands.active !== undefined && c.citationCommands.active.items.length > 0,
        'the Quick Pick',
      );
      const qp = c.citationCommands.active!;
      assert.equal(qp.canSelectMany, false, 'a click only ticks a row');
      assert.deepEqual(
        qp.buttons.map((b) => b.tooltip),
        ['Select Several Papers'],
      );
      const paper = qp.items.find((i) => i.label === PAPER_C.title)!;
      qp.activeItems = [paper];
      let settled = false;
      void Promise.resolve(pending).finally(() => (settled = true));
      await acceptUntil(() => settled, 'accept the highlighted paper');
      const r = await pending;
      assert.equal(r?.done, true, r?.message);
      assert.deepEqual(r.keys, ['garcia2022dna']);
      assert.equal(editor.document.lineAt(3).text, 'O [@garcia2022dna]');
      // One entry, in the singular.
      assert.match(r.message ?? '', /; 1 entry added to /u);
    });

    test('Insert Citations (several): recent results and bibliography entries with ticks; a bibliography entry is cited by its key', async () => {
      const c = await testCore();
      c.recentPapers.remember([PAPER_B, PAPER_C]);
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'q.bib');
      await write(
        bib,
        '@book{knuth1984,\n  title = {The {\\TeX}book},\n  author = {Knuth, Donald E.},\n  year = {1984}\n}\n',
      );
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'q.tex'), '\\bibliography{q}\nQ |\n');
      const pending = run<CitationCommandResult>(Commands.insertCitations);
      await eventually(
        () => c.citationCommands.active !== undefined && c.citationCommands.active.items.length > 0,
        'the Quick Pick',
      );
      const qp = c.citationCommands.active!;
      assert.equal(qp.canSelectMany, true);
      assert.equal(qp.buttons.length, 0);
      const labels = qp.items.map((i) => i.label);
      assert.ok(labels.includes(PAPER_B.title!), 'a recent result is missing');
      const knuth = qp.items.find((i) => i.paper?.key === 'knuth1984');
      assert.ok(knuth, `the bibliography entry is missing: ${labels.join(' | ')}`);
      assert.equal(knuth.label, 'The TeXbook');
      assert.match(knuth.description ?? '', /Knuth · 1984 · knuth1984/u);
      qp.selectedItems = [knuth, qp.items.find((i) => i.label === PAPER_C.title)!];
      let settled = false;
      void Promise.resolve(pending).finally(() => (settled = true));
      await acceptUntil(() => settled, 'accept the two papers');
      const r = await pending;
      assert.equal(r?.done, true, r?.message);
      assert.deepEqual([...(r.keys ?? [])].sort(), ['garcia2022dna', 'knuth1984']);
      assert.equal(editor.document.lineAt(1).text, `Q~\\cite{${r.keys!.join(',')}}`);
      assert.equal(entryCount(await bibText(bib)), 2, 'the picked entry was written again');
      // One new entry of the two cited, in the singular.
      assert.match(r.message ?? '', /; 1 entry added to /u);
    });

    test('from the editor context menu (the document URI as argument): the Quick Pick; Escape cites nothing', async () => {
      const c = await testCore();
      const dir = freshDir();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'ctx.md'), '---\nbibliography: ctx.bib\n---\nC |\n');
      const pending = run<CitationCommandResult>(Commands.insertCitation, editor.document.uri);
      await eventually(() => c.citationCommands.active !== undefined, 'the Quick Pick');
      c.citationCommands.active!.hide();
      const r = await pending;
      assert.equal(r?.done, false);
      assert.equal(editor.document.lineAt(3).text, 'C ');
      assert.equal(await readDisk(vscode.Uri.joinPath(dir, 'ctx.bib')), undefined, 'a .bib was created');
    });

    suite('with the emulator (search results)', () => {
      let restoreEmu: (() => Promise<void>) | undefined;

      suiteSetup(async () => {
        const s = await useEmulatorKeepingKey();
        const key = await control<string>('provisionKey', { plan: 'pro', label: `cite-test-${Date.now()}` });
        await (await api()).keys.set(key, s.origin);
        restoreEmu = s.restore;
      });

      suiteTeardown(async () => {
        await run(Commands.clearResults);
        await restoreEmu?.();
      });

      test('the results view: Insert Citation on a paper with two selected cites both; shown results become recent papers', async () => {
        const out = await run<SearchOutcome>(Commands.searchPapers, 'creatine supplementation cognition');
        assert.equal(out?.outcome, 'shown', out?.message);
        const desk = await api();
        const nodes = desk.results
          .getChildren()
          .filter((n): n is Extract<ResultNode, { kind: 'paper' }> => n.kind === 'paper');
        assert.ok(nodes.length >= 2);
        const c = await testCore();
        assert.equal(c.recentPapers.list()[0]?.title, nodes[0]!.paper.title, 'shown results are not recent papers');
        const dir = freshDir();
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'r.md'), '---\nbibliography: r.bib\n---\nR |\n');
        const r = await cite(nodes[1], [nodes[0], nodes[1]]);
        assert.equal(r.done, true, r.message);
        assert.equal(r.keys?.length, 2);
        assert.equal(editor.document.lineAt(3).text, `R [@${r.keys[0]}; @${r.keys[1]}]`);
        const text = (await bibText(vscode.Uri.joinPath(dir, 'r.bib'))) ?? '';
        for (const k of r.keys) assert.ok(text.includes(`{${k},`), `${k} is not in the .bib`);
        // A click on one paper outside the selection cites that one only.
        const r2 = await cite(nodes[2] ?? nodes[0], [nodes[0], nodes[1]]);
        assert.equal(r2.keys?.length, 1);
      });

      test('the Quick Pick search fallback: "Search papers for …" runs one search, then its results are offered', async () => {
        const c = await testCore();
        c.recentPapers.clear();
        const dir = freshDir();
        const editor = await openDoc(vscode.Uri.joinPath(dir, 's.typ'), '#bibliography("s.bib")\nS |\n');
        const pending = run<CitationCommandResult>(Commands.insertCitation);
        await eventually(() => c.citationCommands.active !== undefined, 'the Quick Pick');
        const qp = c.citationCommands.active!;
        qp.value = 'sleep deprivation memory';
        await eventually(() => qp.items.some((i) => i.search !== undefined), 'the search item');
        const searchItem = qp.items.find((i) => i.search !== undefined)!;
        assert.match(searchItem.label, /Search papers for “sleep deprivation memory”/u);
        qp.selectedItems = [searchItem];
        await acceptUntil(() => c.citationCommands.active !== qp, 'accept the search item');
        await eventually(
          () => c.citationCommands.active !== undefined && c.citationCommands.active.items.length > 0,
          'the results pick',
          200,
        );
        const results = c.citationCommands.active!;
        assert.ok(
          results.items.every((i) => i.search === undefined),
          'the results pick offers another search',
        );
        const first = results.items[0]!;
        results.selectedItems = [first];
        let settled = false;
        void Promise.resolve(pending).finally(() => (settled = true));
        await acceptUntil(() => settled, 'accept a result');
        const r = await pending;
        assert.equal(r?.done, true, r?.message);
        assert.equal(editor.document.lineAt(1).text, `S @${r.keys![0]}`);
        const desk = await api();
        assert.equal(
          desk.results.current?.query,
          'sleep deprivation memory',
          'the search did not reach the results view',
        );
      });
    });
  });

  bibTrustSuite();
}
