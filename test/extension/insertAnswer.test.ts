/**
 * The answer view's citations in the real VS Code: an emulator thread's answer is shown, then
 * Insert Answer (the view's button message) writes it into .md / .tex / .typ / .txt documents of the test workspace
 * with the markers turned into the document's citations and every cited paper in the bibliography (keys in the text
 * = keys in the .bib), quotes as footnotes (setting), Undo; the per-reference buttons (Insert Citation, Copy BibTeX,
 * Copy Reference) and their validation; no editor → a clear message and nothing written.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { CoreInternals } from '../../src/composition/core';
import type { AnswerCitations } from '../../src/citations/insertAnswer';
import { parseBibFile } from '../../src/bib/bibFile';
import { Settings } from '../../src/platform/ids';
import {
  api,
  control,
  emulatorUrl,
  eventually,
  finishedThread,
  openDoc,
  readDisk,
  setUserSettings,
  testCore,
  useEmulatorSettings,
  workspaceDir,
  writeFile as write,
} from './support';

let counter = 0;
async function freshKey(): Promise<string> {
  const key = await control<string>('provisionKey', {
    plan: 'pro',
    label: `insert-answer-test-${Date.now()}-${++counter}`,
  });
  await (await api()).keys.set(key, new URL(await emulatorUrl()).origin);
  return key;
}

const freshDir = (): vscode.Uri => workspaceDir('answer-cite-tests');

/** Keys of a .bib text. */
const bibKeys = (text: string | undefined): string[] => parseBibFile(text ?? '').entries.map((e) => e.key);

/** Keys of a .bib now: its open buffer, else the disk (the save after an edit lands a moment later). */
async function keysNow(bib: vscode.Uri): Promise<string[]> {
  return bibKeys(
    vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString())?.getText() ?? (await readDisk(bib)),
  );
}

export function insertAnswerSuite(): void {
  suite('Insert Answer and the answer view citation actions', function () {
    this.timeout(60_000);
    let restore: (() => Promise<void>) | undefined;
    let restoreSettings: (() => Promise<void>) | undefined;
    let threadId = '';
    let c: CoreInternals;
    let savedConfirm: CoreInternals['bibliographies']['confirmWrite'] | undefined;
    /** The writer's answer to "write to this file?" (a new .bib, one outside the workspace). */
    let allowWrites = true;
    const asked: string[] = [];

    suiteSetup(async () => {
      restore = (await useEmulatorSettings()).restore;
      restoreSettings = await setUserSettings({
        [Settings.citationsLatexCommand]: undefined,
        [Settings.citationsQuotesAsFootnotes]: undefined,
        [Settings.citationsDefaultBibliography]: 'answer-cite-tests/default.bib',
        // The lookup of missing authors has its own tests below; the others use what the answer gives.
        [Settings.citationsLookUpMissingMetadata]: 'never',
      });
      c = await testCore();
      c.bibliographies.clearCache();
      savedConfirm = c.bibliographies.confirmWrite;
      c.bibliographies.confirmWrite = (uri) => {
        asked.push(uri.path);
        return Promise.resolve(allowWrites);
      };
      threadId = await finishedThread(
        await freshKey(),
        'Does creatine supplementation improve memory in older adults?',
      );
    });
    suiteTeardown(async () => {
      if (savedConfirm) c.bibliographies.confirmWrite = savedConfirm;
      await vscode.commands.executeCommand('workbench.action.files.saveAll');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await restoreSettings?.();
      await restore?.();
    });

    /** Shows the answer beside the editor (the editor stays the last active one), then presses Insert Answer. */
    async function insertAnswer(id = threadId): Promise<NonNullable<AnswerCitations['last']>> {
      await c.answers.show(id, { preserveFocus: true });
      c.answerCitations.last = undefined;
      await c.answers.receive(id, { type: 'insertAnswer' });
      const r = c.answerCitations.last;
      assert.ok(r, 'Insert Answer ran');
      return r;
    }

    test('the answer view renders Insert Citation / Copy BibTeX / Copy Reference per reference and an Insert Answer button; bad messages are refused', async () => {
      await c.answers.show(threadId);
      const html = c.answers.inspect(threadId)?.html ?? '';
      const refs = [...html.matchAll(/<li id="cite-(\d+)" class="reference"/g)].length;
      assert.ok(refs > 0, 'references rendered');
      for (const action of ['insertCitation', 'copyBibtex', 'copyReference'])
        assert.equal(
          [...html.matchAll(new RegExp(`data-action="${action}" data-n="\\d+"`, 'g'))].length,
          refs,
          `${action} on every reference`,
        );
      assert.match(html, /<button type="button" id="insert-answer"[^>]*>Insert Answer<\/button>/);
      const before = c.answers.refused.length;
      await c.answers.receive(threadId, { type: 'insertCitation', n: 0 });
      await c.answers.receive(threadId, { type: 'copyBibtex', n: 1, url: 'https://evil.example' });
      await c.answers.receive(threadId, { type: 'insertAnswer', text: 'x' });
      await c.answers.receive(threadId, { type: 'copyReference', n: 9999 });
      assert.deepEqual(c.answers.refused.slice(before), [
        'insertCitation: bad n',
        'copyBibtex: bad n',
        'insertAnswer: unexpected fields',
        'copyReference: unknown reference',
      ]);
    });

    test('Markdown: the answer at the cursor with [@key] citations, every cited paper in the declared .bib (keys equal), saved; one Undo removes the answer', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'refs.bib');
      const original = '---\nbibliography: refs.bib\n---\n\n# Draft\n\n\n';
      const editor = await openDoc(
        vscode.Uri.joinPath(dir, 'draft.md'),
        '---\nbibliography: refs.bib\n---\n\n# Draft\n\n|\n',
      );
      const r = await insertAnswer();
      assert.equal(r.done, true, r.message);
      assert.equal(r.flavour, 'pandoc');
      assert.equal(r.bibliography?.toString(), bib.toString());
      assert.deepEqual(r.unresolved, []);
      const text = editor.document.getText();
      // The answer's first heading is a bold paragraph: the answer adds no section to the document.
      assert.ok(text.startsWith('---\nbibliography: refs.bib\n---\n\n# Draft\n\n**'), text.slice(0, 200));
      assert.deepEqual(text.match(/^#+ .*$/gm), ['# Draft'], 'no heading from the answer');
      assert.ok(!/\[\d+(\.\d+)?\]/.test(text), 'no [n] / [n.m] marker left');
      // An escaped \@ is the service's text (a title's "@WHO"), not a citation.
      const cited = [...new Set([...text.matchAll(/(?<![\\\w])@([A-Za-z0-9_:.+/-]+[A-Za-z0-9_])/g)].map((m) => m[1]!))];
      assert.ok(cited.length > 0, 'citations written');
      assert.match(text, /\[@[^\]]+\]/, 'Pandoc bracket citations');
      await eventually(async () => (await keysNow(bib)).length === cited.length, 'the entries in the .bib');
      assert.deepEqual(
        [...(await keysNow(bib))].sort(),
        [...cited].sort(),
        'every key cited is in the .bib and nothing else',
      );
      assert.deepEqual([...bibKeys(await readDisk(bib))].sort(), [...cited].sort(), 'the .bib is saved');
      assert.deepEqual([...(r.keys ?? [])].sort(), [...cited].sort());
      // One Undo in the document removes the answer.
      await vscode.window.showTextDocument(editor.document);
      await vscode.commands.executeCommand('undo');
      await eventually(() => editor.document.getText() === original, 'Undo to remove the answer');
      const bibDoc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString());
      console.log(
        `    (after Undo in the document, the .bib ${bibDoc ? `buffer has ${bibKeys(bibDoc.getText()).length}` : `file has ${bibKeys(await readDisk(bib)).length}`} entries)`,
      );
    });

    test('LaTeX: \\citep citations (setting) tied to the word, headings as bold paragraphs, specials in LaTeX, entries appended to an existing .bib', async () => {
      const undo = await setUserSettings({ [Settings.citationsLatexCommand]: 'citep' });
      try {
        const dir = freshDir();
        const bib = vscode.Uri.joinPath(dir, 'refs.bib');
        await write(bib, '@article{old2020,\n  title = {Old},\n  year = {2020}\n}\n');
        const editor = await openDoc(
          vscode.Uri.joinPath(dir, 'paper.tex'),
          '\\section{Results}\n|\n\\bibliography{refs}\n',
        );
        const r = await insertAnswer();
        assert.equal(r.done, true, r.message);
        assert.equal(r.flavour, 'latex');
        const text = editor.document.getText();
        // The answer's headings are bold paragraphs: the answer adds no section to the writer's document.
        assert.match(text, /^\\textbf\{[^}]+\}$/m, 'Markdown headings became bold paragraphs');
        assert.ok(!/\\(sub)*section\*/.test(text), 'no section from the answer');
        assert.ok(!/^#/m.test(text), 'no Markdown heading left');
        const unescaped = /(^|[^\\])[%&#_].{0,30}/m.exec(
          text
            .replace(/\\(citep|url|href)\{[^}]*\}/g, '')
            .replace(/\\begin\{tabular\}[\s\S]*?\\end\{tabular\}/g, (t) => t.replace(/ & /g, ' ')),
        );
        assert.equal(unescaped?.[0], undefined, 'every % & # _ in the prose is escaped');
        assert.match(text, /\S~\\citep\{[^}]+\}/, 'citations tied to the word before');
        const cited = [...new Set([...text.matchAll(/\\citep\{([^}]+)\}/g)].flatMap((m) => m[1]!.split(',')))];
        // The .bib is saved after the edit (VS Code writes it a moment later): its buffer when open, else the disk.
        const current = (): Promise<string[]> => keysNow(bib);
        await eventually(async () => (await current()).length === cited.length + 1, 'the entries in the .bib');
        const keys = await current();
        assert.equal(keys[0], 'old2020', 'the existing entry is kept first');
        assert.deepEqual(keys.slice(1).sort(), [...cited].sort());
        assert.ok(text.endsWith('\\bibliography{refs}\n'), 'the text after the cursor is kept');
      } finally {
        await undo();
      }
    });

    test('Typst: @key citations and headings as bold paragraphs, entries in #bibliography("refs.bib"); the same paper again reuses its entry', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'refs.bib');
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'notes.typ'), '#bibliography("refs.bib")\n\n|');
      const r = await insertAnswer();
      assert.equal(r.done, true, r.message);
      assert.equal(r.flavour, 'typst');
      const text = editor.document.getText();
      assert.match(text, /^#strong\[[^\]]+\]$/m, 'headings became bold paragraphs');
      assert.ok(!/^=+ /m.test(text), 'no Typst heading from the answer');
      assert.ok(!/^#{2,} /m.test(text), 'no Markdown heading left');
      const cited = [...new Set([...text.matchAll(/(?<![\w\\])@([A-Za-z0-9_:.-]*[A-Za-z0-9_])/g)].map((m) => m[1]!))];
      assert.ok(cited.length > 0);
      await eventually(async () => (await keysNow(bib)).length === cited.length, 'the entries in the .bib');
      const first = await keysNow(bib);
      assert.deepEqual([...first].sort(), [...cited].sort());
      // Inserted again at the end: no entry is added twice.
      const end = editor.document.positionAt(editor.document.getText().length);
      editor.selection = new vscode.Selection(end, end);
      const again = await insertAnswer();
      assert.equal(again.done, true, again.message);
      assert.deepEqual(await keysNow(bib), first, 'entries reused (same title and year), not duplicated');
    });

    test('two papers with the same title and year (other journals) get an entry each, and each marker cites its own paper', async () => {
      await c.answers.show(threadId);
      const interaction = c.answers.shown(threadId)?.interaction;
      const response = interaction?.response ?? '';
      const citations = interaction?.citations ?? [];
      const twins = citations.filter((x) =>
        citations.some((y) => y !== x && y.title === x.title && y.year === x.year && y.journal !== x.journal),
      );
      assert.ok(twins.length >= 2, 'the emulator answer cites two papers of the same title and year');
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'twins.bib');
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'twins.md'), '---\nbibliography: twins.bib\n---\n\n|');
      const r = await insertAnswer();
      assert.equal(r.done, true, r.message);
      const cited = [
        ...new Set(
          [...response.matchAll(/\[(\d+)(?:\.\d+)?\]/g)].map(
            (m) => citations.find((x) => x.n === Number(m[1]))!.paper_id!,
          ),
        ),
      ];
      await eventually(async () => (await keysNow(bib)).length === cited.length, 'one entry per distinct paper');
      const text =
        vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString())?.getText() ??
        (await readDisk(bib)) ??
        '';
      const entries = parseBibFile(text).entries;
      // Each entry keeps the service's URL of its paper, which ends with the paper's id.
      const keyOf = (paperId: string): string => {
        const hits = entries.filter((e) => (e.raw['url'] ?? '').includes(paperId));
        assert.equal(hits.length, 1, `one entry for ${paperId}`);
        return hits[0]!.key;
      };
      assert.notEqual(keyOf(twins[0]!.paper_id!), keyOf(twins[1]!.paper_id!));
      // Each list line of the answer ends with one marker; the inserted line ends with that paper's citation.
      const items = response.split('\n').filter((l) => l.startsWith('- '));
      const inserted = editor.document
        .getText()
        .split('\n')
        .filter((l) => l.startsWith('- '));
      assert.equal(inserted.length, items.length);
      items.forEach((item, i) => {
        const n = /\[(\d+)(?:\.\d+)?\]$/.exec(item)?.[1];
        if (n !== undefined)
          assert.ok(
            inserted[i]!.endsWith(`[@${keyOf(citations.find((x) => x.n === Number(n))!.paper_id!)}]`),
            `${item}\n→ ${inserted[i]}`,
          );
      });
    });

    test('two answers in one Quarto document with quotes as footnotes: every label defined once, no heading from either answer', async () => {
      const undo = await setUserSettings({ [Settings.citationsQuotesAsFootnotes]: true });
      try {
        const other = await finishedThread(
          await freshKey(),
          'Effect of formative feedback on mathematics performance in secondary school students',
        );
        const dir = freshDir();
        const editor = await openDoc(
          vscode.Uri.joinPath(dir, 'two.qmd'),
          '---\ntitle: Two\nbibliography: two.bib\n---\n\n# Draft\n\n|',
        );
        for (const id of [threadId, other]) {
          const end = editor.document.positionAt(editor.document.getText().length);
          editor.selection = new vscode.Selection(end, end);
          const r = await insertAnswer(id);
          assert.equal(r.done, true, r.message);
        }
        const text = editor.document.getText();
        assert.deepEqual(text.match(/^#+ .*$/gm), ['# Draft'], 'no heading from the answers');
        const definitions = [...text.matchAll(/^\[\^([^\]]+)\]:/gm)].map((m) => m[1]!);
        assert.equal(new Set(definitions).size, definitions.length, `labels defined once: ${definitions.join(' ')}`);
        const references = new Set([...text.matchAll(/\[\^([^\]\s]+)\](?!:)/g)].map((m) => m[1]!));
        assert.deepEqual([...references].sort(), [...definitions].sort(), 'every reference has its definition');
        assert.ok(
          definitions.some((l) => l.startsWith('a2-')),
          'the second answer took the a2- prefix',
        );
      } finally {
        await undo();
      }
    });

    test('quotes as footnotes (setting): [^n.m] in the text and a footnote with the quote and its citation', async () => {
      const undo = await setUserSettings({ [Settings.citationsQuotesAsFootnotes]: true });
      try {
        const dir = freshDir();
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'fn.md'), '---\nbibliography: fn.bib\n---\n\n|');
        const r = await insertAnswer();
        assert.equal(r.done, true, r.message);
        const text = editor.document.getText();
        const ref = /\[\^(\d+\.\d+)\]/.exec(text);
        assert.ok(ref, 'a footnote reference');
        assert.match(
          text,
          new RegExp(`^\\[\\^${ref[1]!.replace('.', '\\.')}\\]: “.+” \\[@[^\\]]+\\]\\.$`, 'm'),
          'its footnote: the quote and the citation',
        );
      } finally {
        await undo();
      }
    });

    test('a paper seen in a search keeps its full metadata: its DOI reaches the .bib', async () => {
      await c.answers.show(threadId);
      // A reference whose title no other reference of the answer has (the emulator's titles repeat; RecentPapers
      // merges papers by title too).
      const refs = c.answers.shown(threadId)?.references ?? [];
      const first = refs.find((r) => r.paperId && refs.filter((o) => o.title === r.title).length === 1);
      assert.ok(first?.paperId, 'a reference with a paper id');
      c.recentPapers.remember([
        {
          id: first.paperId,
          title: first.title ?? 'T',
          publish_year: first.year ?? 2020,
          authors: ['Ada Lovelace'],
          doi: '10.5555/answer-test.1',
          journal_name: 'Journal of Tests',
        },
      ]);
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'meta.bib');
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'm.md'), '---\nbibliography: meta.bib\n---\n\nSee |.\n');
      await c.answers.show(threadId, { preserveFocus: true });
      await c.answers.receive(threadId, { type: 'insertCitation', n: first.n });
      await eventually(() => /\[@lovelace/.test(editor.document.getText()), 'the citation from the answer view').catch(
        () =>
          assert.fail(
            `no citation: ${JSON.stringify(editor.document.getText())}; active editor ${vscode.window.activeTextEditor?.document.uri.path ?? 'none'}`,
          ),
      );
      assert.match(editor.document.getText(), /See \[@lovelace\d{4}\w*\]\./);
      await eventually(async () => (await keysNow(bib)).length === 1, 'the entry in the .bib');
      const text =
        vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString())?.getText() ??
        (await readDisk(bib));
      assert.match(text ?? '', /doi = \{10\.5555\/answer-test\.1\}/);
      assert.match(text ?? '', /author = \{Lovelace, Ada\}/);
    });

    test('lookup "always": the cited papers get their authors and DOI from one search each (charged), keys from the authors', async () => {
      const label = `insert-answer-lookup-${Date.now()}`;
      const key = await control<string>('provisionKey', { plan: 'pro', label });
      await (await api()).keys.set(key, new URL(await emulatorUrl()).origin);
      const id = await finishedThread(key, 'Does mindfulness training reduce anxiety in university students?');
      const undo = await setUserSettings({ [Settings.citationsLookUpMissingMetadata]: 'always' });
      try {
        const dir = freshDir();
        const bib = vscode.Uri.joinPath(dir, 'looked.bib');
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'l.md'), '---\nbibliography: looked.bib\n---\n\n|');
        await c.answers.show(id, { preserveFocus: true });
        c.answerCitations.last = undefined;
        await c.answers.receive(id, { type: 'insertAnswer' });
        const r = c.answerCitations.last as AnswerCitations['last'];
        assert.equal(r?.done, true, r?.message);
        const lookup = c.paperLookup.last;
        assert.ok(lookup && lookup.calls > 0, 'searches were sent');
        const charged = (await control<{ keyLabel: string; reason: string; calls: number }[]>('charges')).filter(
          (x) => x.keyLabel === label && x.reason === 'search',
        );
        assert.equal(charged.length, lookup.calls, 'one charged search per lookup, no more');
        assert.ok(lookup.completed > 0, 'papers were found by their title');
        await eventually(async () => (await keysNow(bib)).length > 0, 'the entries in the .bib');
        const text =
          vscode.workspace.textDocuments.find((d) => d.uri.toString() === bib.toString())?.getText() ??
          (await readDisk(bib)) ??
          '';
        const authored = parseBibFile(text).entries.filter((e) => /\bauthor\s*=/.test(text.slice(e.start, e.end)));
        assert.equal(authored.length, lookup.completed, `entries with authors: ${text.slice(0, 400)}`);
        assert.ok(
          !/\[@anon/.test(editor.document.getText()) || lookup.completed < (r?.keys?.length ?? 0),
          'completed papers are not cited as anon',
        );
      } finally {
        await undo();
      }
    });

    test('lookup "ask": cancelling the question writes nothing and spends nothing; "use the answer\'s details" spends nothing', async () => {
      const undo = await setUserSettings({ [Settings.citationsLookUpMissingMetadata]: 'ask' });
      const ask = c.paperLookup.ask;
      try {
        const dir = freshDir();
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'a.md'), '---\nbibliography: asked.bib\n---\n\n|');
        const before = editor.document.getText();
        let asked = 0;
        c.paperLookup.ask = (n) => {
          asked = n;
          return Promise.resolve(undefined);
        };
        const cancelled = await insertAnswer();
        assert.equal(cancelled.done, false);
        assert.ok(asked > 0, 'the question names the number of calls');
        assert.equal(editor.document.getText(), before, 'nothing written');
        assert.equal(await readDisk(vscode.Uri.joinPath(dir, 'asked.bib')), undefined, 'no .bib written');
        c.paperLookup.ask = () => Promise.resolve('skip');
        const skipped = await insertAnswer();
        assert.equal(skipped.done, true, skipped.message);
        assert.equal(c.paperLookup.last?.calls, 0, 'no search sent');
      } finally {
        c.paperLookup.ask = ask;
        await undo();
      }
    });

    test('Copy Reference and Copy BibTeX from the answer view put the paper on the clipboard', async () => {
      await c.answers.show(threadId);
      const first = c.answers.shown(threadId)?.references[0];
      assert.ok(first);
      await vscode.env.clipboard.writeText('');
      await c.answers.receive(threadId, { type: 'copyReference', n: first.n });
      const reference = await vscode.env.clipboard.readText();
      assert.ok(first.year === undefined || reference.includes(`(${first.year})`), reference);
      await c.answers.receive(threadId, { type: 'copyBibtex', n: first.n });
      assert.match(await vscode.env.clipboard.readText(), /^@\w+\{[^,]+,\n/);
    });

    test('plain text: APA in-text citations and a reference list; no bibliography written', async () => {
      const dir = freshDir();
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'notes.txt'), '|');
      const r = await insertAnswer();
      assert.equal(r.done, true, r.message);
      assert.equal(r.flavour, 'plain');
      assert.equal(r.bibliography, undefined);
      const text = editor.document.getText();
      assert.match(text, /\([^()]+, \d{4}\)/, 'an APA in-text citation');
      assert.match(text, /\nReferences\n\n/);
      assert.ok(!/\[\d+(\.\d+)?\]/.test(text.split('\nReferences\n')[0]!), 'no marker left');
      assert.deepEqual(await readDisk(vscode.Uri.joinPath(dir, 'refs.bib')), undefined);
    });

    test('a bibliography the document declares outside the workspace: asked first; No writes nothing anywhere, Yes appends to its bytes', async () => {
      const outside = mkdtempSync(join(tmpdir(), 'rd-answer-outside-'));
      try {
        const bib = join(outside, 'shared.bib');
        const original = Buffer.from('@misc{old,\r\n  title = {Old}\r\n}\r\n');
        writeFileSync(bib, original);
        const dir = freshDir();
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'out.md'), `---\nbibliography: ${bib}\n---\n\n|`);
        const before = editor.document.getText();
        allowWrites = false;
        asked.length = 0;
        const no = await insertAnswer();
        assert.equal(no.done, false);
        assert.deepEqual(asked, [bib]);
        assert.equal(editor.document.getText(), before, 'the answer was inserted without its bibliography');
        assert.ok(readFileSync(bib).equals(original));
        allowWrites = true;
        const yes = await insertAnswer();
        assert.equal(yes.done, true, yes.message);
        const after = readFileSync(bib);
        assert.ok(after.subarray(0, original.length).equals(original), 'a byte before the end changed');
        assert.deepEqual(bibKeys(after.toString('utf8')).slice(1).sort(), [...(yes.keys ?? [])].sort());
        assert.ok(
          !after.subarray(original.length).toString('utf8').replace(/\r\n/gu, '').includes('\n'),
          "the file's CRLF line breaks were not kept",
        );
      } finally {
        allowWrites = true;
        rmSync(outside, { recursive: true, force: true });
      }
    });

    test('a .bib whose last entry is not closed: the answer is not inserted, the writer is told where, the .bib is unchanged', async () => {
      const dir = freshDir();
      const bib = vscode.Uri.joinPath(dir, 'broken.bib');
      const original = '@article{fine2020, title = {Fine}}\n@article{broken2021,\n  title = {Never closed\n';
      await write(bib, original);
      const editor = await openDoc(vscode.Uri.joinPath(dir, 'b.md'), '---\nbibliography: broken.bib\n---\n\n|');
      const before = editor.document.getText();
      const r = await insertAnswer();
      assert.equal(r.done, false);
      assert.match(r.message ?? '', /broken2021 \(line 2\) is not closed/);
      assert.equal(editor.document.getText(), before);
      assert.equal(await readDisk(bib), original);
    });

    test('no answer open: Insert Answer explains what to do and writes nothing', async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await eventually(() => c.answers.openThreads().length === 0, 'the answer panels to close');
      c.answerCitations.last = undefined;
      const r = await c.answerCitations.insertAnswer(undefined);
      assert.equal(r.done, false);
      assert.match(r.message ?? '', /Open an answer first/);
    });
  });
}
