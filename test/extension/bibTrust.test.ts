/**
 * Bibliography writes in the real VS Code against a hostile workspace (trusted and Restricted Mode): a workspace's
 * .vscode/settings.json pointing the default bibliography outside the workspace, at a non-.bib file or at an absolute
 * path; documents declaring bibliographies outside (`\addbibresource{/abs}`, `\bibliography{../../x}`, YAML
 * `bibliography: /abs`); .bib files with a lone CR, mixed line breaks and a BOM, in Latin-1, with an unclosed entry or
 * a NUL, none of them open. Nothing is written without the writer's (injected) yes, a refusal says why, and every
 * write is checked byte for byte with fs reads: the file after = the file before + exactly the appended text.
 *
 * It also records what VS Code's text model does to such files when a WorkspaceEdit touches them and they are saved
 * (why entries are appended to the bytes instead).
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import * as vscode from 'vscode';
import type { CoreInternals } from '../../src/composition/core';
import type { CitationCommandResult } from '../../src/citations/commandSupport';
import type { WriteQuestion } from '../../src/citations/bibliographyWrite';
import type { CitePaper } from '../../src/citations/types';
import { Commands, Settings } from '../../src/platform/ids';
import { eventually, openDoc, setUserSettings, sleep, testCore, workspaceDir } from './support';

const PAPER: CitePaper = {
  title: 'Creatine supplementation and cognitive performance: a randomized trial',
  authors: ['Julia Sandkühler', 'Anna Müller'],
  journal_name: 'Nutrients',
  publish_year: 2023,
  doi: '10.3390/nu15000001',
};
const PAPER_2: CitePaper = {
  title: 'Sleep and memory in adolescents',
  authors: ['Li Wei'],
  journal_name: 'Sleep',
  publish_year: 2021,
  doi: '10.1111/sleep.42',
};
const CJK_PAPER: CitePaper = {
  title: '睡眠と記憶',
  authors: ['Tanaka Kenji'],
  journal_name: 'Sleep',
  publish_year: 2020,
  doi: '10.1111/jp.1',
};

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);
async function cite(...args: unknown[]): Promise<CitationCommandResult> {
  const r = await run<CitationCommandResult>(Commands.insertCitation, ...args);
  assert.ok(r, 'Insert Citation returned nothing');
  return r;
}

/** The file's bytes (undefined when it does not exist), read with Node: what is really on disk. */
const bytesOf = (path: string): Buffer | undefined => {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};
const fsPath = (uri: vscode.Uri): string => uri.path;

/** Asserts `after` is `before` followed by one new entry with `key` (the appended text only). */
function assertAppended(before: Buffer, after: Buffer | undefined, key: string, nl: string): void {
  assert.ok(after, 'the file is gone');
  assert.ok(after.length > before.length, 'nothing was appended');
  assert.ok(
    after.subarray(0, before.length).equals(before),
    `a byte before the end changed:\n${JSON.stringify(after.subarray(0, before.length).toString('latin1'))}`,
  );
  const tail = after.subarray(before.length).toString('utf8');
  assert.match(tail, new RegExp(`^(?:${nl})*@article\\{${key},${nl}`, 'u'), JSON.stringify(tail));
  assert.ok(tail.endsWith(`}${nl}`), JSON.stringify(tail.slice(-20)));
}

export function bibTrustSuite(): void {
  suite(
    `Bibliography writes: only .bib files, only where the writer meant, byte for byte (${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode'})`,
    function () {
      this.timeout(60_000);
      let c: CoreInternals;
      let restoreUser: (() => Promise<void>) | undefined;
      let savedConfirm: CoreInternals['bibliographies']['confirmWrite'];
      let questions: { uri: string; why: WriteQuestion }[] = [];
      let answer = false;
      /** A folder outside the workspace (next to it, in the temporary folder). */
      let outside = '';
      let settingsFile = '';
      let settingsBefore: string | undefined;

      suiteSetup(async () => {
        c = await testCore();
        c.bibliographies.clearCache();
        savedConfirm = c.bibliographies.confirmWrite;
        c.bibliographies.confirmWrite = (uri, why) => {
          questions.push({ uri: uri.toString(), why });
          return Promise.resolve(answer);
        };
        restoreUser = await setUserSettings({
          [Settings.citationsDefaultBibliography]: 'bib-trust/user-default.bib',
          [Settings.citationsLatexCommand]: undefined,
          [Settings.citationsAskLocator]: undefined,
          [Settings.citationsKeyScheme]: undefined,
        });
        outside = mkdtempSync(join(tmpdir(), 'rd-outside-'));
        const root = vscode.workspace.workspaceFolders![0]!.uri.path;
        settingsFile = join(root, '.vscode', 'settings.json');
        settingsBefore = bytesOf(settingsFile)?.toString('utf8');
      });

      suiteTeardown(async () => {
        c.bibliographies.confirmWrite = savedConfirm;
        if (settingsBefore === undefined) rmSync(settingsFile, { force: true });
        else writeFileSync(settingsFile, settingsBefore);
        await sleep(300);
        await vscode.commands.executeCommand('workbench.action.closeAllEditors');
        await restoreUser?.();
        rmSync(outside, { recursive: true, force: true });
        c.bibliographies.clearCache();
      });

      setup(() => {
        questions = [];
        answer = false;
        c.bibliographies.clearCache();
      });

      /**
       * Writes the workspace's .vscode/settings.json as a hostile repository would, and waits until VS Code read it.
       */
      async function hostileSetting(value: string): Promise<void> {
        const json = {
          ...(JSON.parse(settingsBefore ?? '{}') as Record<string, unknown>),
          [Settings.citationsDefaultBibliography]: value,
        };
        mkdirSync(join(settingsFile, '..'), { recursive: true });
        const changed = new Promise<void>((resolve) => {
          const sub = vscode.workspace.onDidChangeConfiguration((e) => {
            if (e.affectsConfiguration(Settings.citationsDefaultBibliography)) {
              sub.dispose();
              resolve();
            }
          });
          setTimeout(() => {
            sub.dispose();
            resolve();
          }, 3000);
        });
        writeFileSync(settingsFile, JSON.stringify(json, null, 2));
        await changed;
        if (vscode.workspace.isTrusted)
          await eventually(
            () => vscode.workspace.getConfiguration().get(Settings.citationsDefaultBibliography) === value,
            'VS Code to read the workspace setting',
          );
      }

      async function clearHostileSetting(): Promise<void> {
        if (settingsBefore === undefined) rmSync(settingsFile, { force: true });
        else writeFileSync(settingsFile, settingsBefore);
        if (vscode.workspace.isTrusted)
          await eventually(
            () =>
              vscode.workspace.getConfiguration().get(Settings.citationsDefaultBibliography) ===
              'bib-trust/user-default.bib',
            'the workspace setting to be gone',
          );
        else await sleep(500);
      }

      test("VS Code's text model changes an unopened file's bytes when a WorkspaceEdit touches it and it is saved: mixed line breaks and lone CRs are normalised, Latin-1 becomes U+FFFD, a BOM is kept", async () => {
        // What the extension must not rely on: recorded here so a change in VS Code shows.
        const dir = workspaceDir('bib-trust');
        const cases: [string, Buffer, (after: Buffer) => void][] = [
          [
            'mixed',
            Buffer.from('@a{x,\r\n t = {1}}\n@b{y,\r t = {2}}\r\n', 'latin1'),
            (a) => assert.equal(a.toString('latin1'), '@a{x,\r\n t = {1}}\r\n@b{y,\r\n t = {2}}\r\nZZ'),
          ],
          [
            'lone-cr',
            Buffer.from('@a{x,\r t = {1}}\n', 'latin1'),
            (a) => assert.equal(a.toString('latin1'), '@a{x,\n t = {1}}\nZZ'),
          ],
          [
            'latin1',
            Buffer.from('@a{x, t = {M\xfcller}}\n', 'latin1'),
            (a) => assert.equal(a.toString('utf8'), '@a{x, t = {M\ufffdller}}\nZZ'),
          ],
          ['bom', Buffer.from('\ufeff@a{x}\n', 'utf8'), (a) => assert.equal(a.toString('utf8'), '\ufeff@a{x}\nZZ')],
        ];
        for (const [name, bytes, check] of cases) {
          const uri = vscode.Uri.joinPath(dir, `${name}.bib`);
          mkdirSync(fsPath(dir), { recursive: true });
          writeFileSync(fsPath(uri), bytes);
          const edit = new vscode.WorkspaceEdit();
          edit.insert(uri, new vscode.Position(100, 0), 'ZZ');
          assert.ok(await vscode.workspace.applyEdit(edit));
          const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
          assert.ok(await doc?.save());
          check(bytesOf(fsPath(uri))!);
        }
      });

      test('a workspace setting naming a file that is not a .bib (a shell profile outside the workspace): nothing is written, the writer is told why', async () => {
        const target = join(outside, 'dot-bashrc');
        writeFileSync(target, 'export PATH=/usr/bin\n');
        const root = vscode.workspace.workspaceFolders![0]!.uri.path;
        await hostileSetting(relative(root, target));
        try {
          const dir = workspaceDir('bib-trust');
          const editor = await openDoc(vscode.Uri.joinPath(dir, 'notes.md'), 'Claim |\n');
          const r = await cite(PAPER);
          assert.equal(bytesOf(target)?.toString(), 'export PATH=/usr/bin\n', 'the file outside was written');
          if (vscode.workspace.isTrusted) {
            assert.equal(r.done, false);
            assert.match(r.message ?? '', /not a BibTeX file \(\.bib\).*writes only \.bib files/u);
            assert.match(r.message ?? '', /workspace's setting/u);
            assert.equal(editor.document.getText(), 'Claim \n');
            assert.deepEqual(questions, []);
          } else {
            // Restricted Mode: VS Code withholds the repository's value; the writer's own setting applies (a new file:
            // asked).
            assert.deepEqual(
              questions.map((q) => [q.uri.endsWith('/bib-trust/user-default.bib'), q.why.create, q.why.outside]),
              [[true, true, false]],
            );
            assert.equal(r.done, false);
          }
        } finally {
          await clearHostileSetting();
        }
      });

      test('a workspace setting naming an absolute .bib outside the workspace: asked first; No writes nothing, Yes appends byte for byte and is remembered for the session', async () => {
        const target = join(outside, 'shared.bib');
        const original = Buffer.from('@misc{old,\n  title = {Old}\n}\n');
        writeFileSync(target, original);
        await hostileSetting(target);
        try {
          const dir = workspaceDir('bib-trust');
          const editor = await openDoc(vscode.Uri.joinPath(dir, 'a.md'), 'A |\n');
          answer = false;
          const no = await cite(PAPER);
          assert.equal(no.done, false);
          assert.equal(editor.document.getText(), 'A \n');
          assert.ok(bytesOf(target)?.equals(original), 'written without a yes');
          if (!vscode.workspace.isTrusted) {
            // The repository's value is not applied in Restricted Mode: the question is about the writer's own default.
            assert.ok(
              questions.every((q) => q.uri.endsWith('/bib-trust/user-default.bib')),
              JSON.stringify(questions),
            );
            return;
          }
          assert.equal(questions.length, 1);
          assert.deepEqual(questions[0]!.why, {
            outside: true,
            link: false,
            create: false,
            fromWorkspaceSetting: true,
          });
          answer = true;
          const yes = await cite(PAPER);
          assert.equal(yes.done, true, yes.message);
          assertAppended(original, bytesOf(target), 'sandkuhler2023creatine', '\n');
          const afterFirst = bytesOf(target)!;
          // Once per file: the second write is not asked again.
          answer = false;
          const again = await cite(PAPER_2);
          assert.equal(again.done, true, again.message);
          assert.equal(questions.length, 2);
          assertAppended(afterFirst, bytesOf(target), 'wei2021sleep', '\n');
        } finally {
          await clearHostileSetting();
        }
      });

      test('declared bibliographies outside the workspace (\\addbibresource{/abs}, \\bibliography{../../x}, YAML bibliography: /abs) and a new one: asked first, once per file', async () => {
        const dir = workspaceDir('bib-trust');
        const abs = join(outside, 'abs.bib');
        const rel = join(outside, 'rel.bib');
        const yaml = join(outside, 'yaml.bib');
        for (const f of [abs, rel, yaml]) writeFileSync(f, '@misc{x,\n  title = {X}\n}\n');
        const relFromDoc = relative(fsPath(dir), rel).replace(/\.bib$/u, '');
        const docs: [string, string, string][] = [
          ['abs.tex', `\\addbibresource{${abs}}\nA |\n`, abs],
          ['rel.tex', `\\bibliography{${relFromDoc}}\nB |\n`, rel],
          ['yaml.md', `---\nbibliography: ${yaml}\n---\nC |\n`, yaml],
          ['new.md', '---\nbibliography: new-here.bib\n---\nD |\n', join(fsPath(dir), 'new-here.bib')],
        ];
        for (const [name, text, target] of docs) {
          const before = bytesOf(target);
          questions = [];
          await openDoc(vscode.Uri.joinPath(dir, name), text);
          answer = false;
          const no = await cite(PAPER);
          assert.equal(no.done, false, `${name}: ${no.message}`);
          assert.deepEqual(bytesOf(target), before, `${name}: written without a yes`);
          assert.equal(questions.length, 1, name);
          assert.equal(questions[0]!.uri.endsWith(target), true, `${name}: asked about ${questions[0]!.uri}`);
          assert.deepEqual(
            [questions[0]!.why.outside, questions[0]!.why.create],
            name === 'new.md' ? [false, true] : [true, false],
            name,
          );
          answer = true;
          const yes = await cite(PAPER);
          assert.equal(yes.done, true, `${name}: ${yes.message}`);
          if (before) assertAppended(before, bytesOf(target), 'sandkuhler2023creatine', '\n');
          else assert.match(bytesOf(target)?.toString('utf8') ?? '', /^@article\{sandkuhler2023creatine,\n/u);
          await cite(PAPER_2);
          assert.equal(questions.length, 2, `${name}: asked again for the same file`);
        }
      });

      test('a .bib in the workspace that is a symbolic link to a file outside: asked first; one that is a directory: refused with the reason', async () => {
        const dir = workspaceDir('bib-trust');
        mkdirSync(fsPath(dir), { recursive: true });
        const target = join(outside, 'linked-target');
        const original = Buffer.from('# not a bibliography\n');
        writeFileSync(target, original);
        symlinkSync(target, join(fsPath(dir), 'linked.bib'));
        await openDoc(vscode.Uri.joinPath(dir, 'l.tex'), '\\bibliography{linked}\nL |\n');
        answer = false;
        const r = await cite(PAPER);
        assert.equal(r.done, false);
        assert.deepEqual(
          questions.map((q) => [q.why.link, q.why.outside]),
          [[true, true]],
        );
        assert.ok(bytesOf(target)?.equals(original), 'written through the link without a yes');
        mkdirSync(join(fsPath(dir), 'folder.bib'));
        await openDoc(vscode.Uri.joinPath(dir, 'f.tex'), '\\bibliography{folder}\nF |\n');
        const f = await cite(PAPER);
        assert.equal(f.done, false);
        assert.match(f.message ?? '', /folder\.bib is not a regular file/u);
      });

      test("completion's Add to Bibliography into a bibliography outside the workspace: asked; No writes nothing", async () => {
        const dir = workspaceDir('bib-trust');
        const target = join(outside, 'completion.bib');
        const original = Buffer.from('@misc{x,\n  title = {X}\n}\n');
        writeFileSync(target, original);
        const { document } = await openDoc(
          vscode.Uri.joinPath(dir, 'c.tex'),
          `\\addbibresource{${target}}\n\\cite{sandkuhler2023creatine|}\n`,
        );
        answer = false;
        const key = await run<string>(Commands.addToBibliography, {
          uri: document.uri.toString(),
          line: 1,
          character: 6,
          key: 'sandkuhler2023creatine',
          paper: PAPER,
        });
        assert.equal(key, undefined);
        assert.ok(bytesOf(target)?.equals(original));
        assert.equal(questions.length, 1);
        answer = true;
        assert.equal(
          await run<string>(Commands.addToBibliography, {
            uri: document.uri.toString(),
            line: 1,
            character: 6,
            key: 'sandkuhler2023creatine',
            paper: PAPER,
          }),
          'sandkuhler2023creatine',
        );
        assertAppended(original, bytesOf(target), 'sandkuhler2023creatine', '\n');
      });

      test('an unopened .bib with a lone CR, mixed line breaks and a BOM: the entry is appended after the last byte, every other byte as it was', async () => {
        const dir = workspaceDir('bib-trust');
        mkdirSync(fsPath(dir), { recursive: true });
        const cases: [string, Buffer, string][] = [
          [
            'lone-cr.bib',
            Buffer.from('@article{a2019,\r  title = {Lone CR inside},\r\n  year = {2019}\n}\n', 'utf8'),
            '\n',
          ],
          [
            'mixed.bib',
            Buffer.from('\ufeff@misc{m1,\r\n  title = {One}\r\n}\r\n@misc{m2,\n  title = {Two}\n}\r\n\r\n', 'utf8'),
            '\r\n',
          ],
          ['no-final-break.bib', Buffer.from('@misc{m1,\r\n  title = {One}\r\n}', 'utf8'), '\r\n'],
        ];
        for (const [name, bytes, nl] of cases) {
          const bib = join(fsPath(dir), name);
          writeFileSync(bib, bytes);
          await openDoc(
            vscode.Uri.joinPath(dir, `${name}.tex`),
            `\\bibliography{${name.replace(/\.bib$/u, '')}}\nX |\n`,
          );
          const r = await cite(PAPER);
          assert.equal(r.done, true, `${name}: ${r.message}`);
          assertAppended(bytes, bytesOf(bib), 'sandkuhler2023creatine', nl);
          assert.deepEqual(questions, [], `${name}: asked about a file in the workspace`);
          const doc = vscode.workspace.textDocuments.find((d) => d.uri.path === bib);
          assert.ok(!doc?.isDirty, `${name}: left as an unsaved buffer`);
        }
      });

      test('an unopened Latin-1 .bib: refused with the reason (never re-encoded); with files.encoding set, appended in Latin-1 byte for byte; a character Latin-1 cannot hold is refused', async () => {
        const dir = workspaceDir('bib-trust');
        mkdirSync(fsPath(dir), { recursive: true });
        const bib = join(fsPath(dir), 'latin1.bib');
        const original = Buffer.from(
          '@article{m1999,\n  author = {M\xfcller, J\xfcrgen},\n  title = {\xc4rger}\n}\n',
          'latin1',
        );
        writeFileSync(bib, original);
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'l.tex'), '\\bibliography{latin1}\nL |\n');
        const r = await cite(PAPER);
        assert.equal(r.done, false);
        assert.match(r.message ?? '', /not valid UTF-8.*files\.encoding/u);
        assert.ok(bytesOf(bib)?.equals(original), 'the Latin-1 file changed');
        assert.equal(editor.document.lineAt(1).text, 'L ');
        const undo = await setUserSettings({ 'files.encoding': 'iso88591' });
        try {
          c.bibliographies.clearCache();
          const ok = await cite(PAPER);
          assert.equal(ok.done, true, ok.message);
          assertAppended(original, bytesOf(bib), 'sandkuhler2023creatine', '\n');
          const afterFirst = bytesOf(bib)!;
          const cjk = await cite(CJK_PAPER);
          assert.equal(cjk.done, false);
          assert.match(cjk.message ?? '', /cannot hold/u);
          assert.ok(bytesOf(bib)?.equals(afterFirst));
        } finally {
          await undo();
        }
      });

      test('an unopened .bib whose last entry is not closed: nothing appended (BibTeX would swallow it), the writer told where; a NUL in an @string does not break finding an entry', async () => {
        const dir = workspaceDir('bib-trust');
        mkdirSync(fsPath(dir), { recursive: true });
        const bib = join(fsPath(dir), 'open.bib');
        const original = Buffer.from(
          '@article{ok2020,\n  title = {Fine},\n  doi = {10.1/fine}\n}\n\n@article{open2021,\n  title = {Never closed,\n  year = {2021}\n',
          'utf8',
        );
        writeFileSync(bib, original);
        const editor = await openDoc(vscode.Uri.joinPath(dir, 'o.md'), '---\nbibliography: open.bib\n---\nO |\n');
        const r = await cite(PAPER);
        assert.equal(r.done, false);
        assert.match(r.message ?? '', /open2021 \(line 6\) is not closed/u);
        assert.ok(bytesOf(bib)?.equals(original));
        assert.equal(editor.document.lineAt(3).text, 'O ');
        // A paper already in the file is still cited (nothing to append).
        const reuse = await cite({ title: 'Fine', doi: '10.1/FINE', publish_year: 2020 });
        assert.deepEqual(reuse.keys, ['ok2020']);

        const nul = join(fsPath(dir), 'nul.bib');
        writeFileSync(
          nul,
          Buffer.from(
            '@string{j = "Jour\0nal"}\n@article{n2020, title = {Hello World}, journal = j, year = 2020}\n',
            'utf8',
          ),
        );
        await openDoc(vscode.Uri.joinPath(dir, 'n.md'), '---\nbibliography: nul.bib\n---\nN |\n');
        const found = await cite({ title: 'Hello world', publish_year: 2020 });
        assert.equal(found.done, true, found.message);
        assert.deepEqual(found.keys, ['n2020']);
      });

      test('Tidy: an unopened .bib with mixed line breaks is left as it is (with the reason); a CRLF one keeps crossref order and a cited duplicate, and only the buffer changes', async () => {
        const dir = workspaceDir('bib-trust');
        mkdirSync(fsPath(dir), { recursive: true });
        const mixed = join(fsPath(dir), 'mixed.bib');
        const mixedBytes = Buffer.from('@misc{b,\r\n  title = {B}\r\n}\n@misc{a,\r  title = {A}\n}\n', 'utf8');
        writeFileSync(mixed, mixedBytes);
        const r = await run<CitationCommandResult>(Commands.tidyBibliography, vscode.Uri.joinPath(dir, 'mixed.bib'));
        assert.equal(r?.done, false);
        assert.match(r?.message ?? '', /ends its lines in more than one way/u);
        assert.ok(bytesOf(mixed)?.equals(mixedBytes));

        const crlf = join(fsPath(dir), 'crlf.bib');
        const text = [
          '@proceedings{conf, title = {Conf}}',
          '@inproceedings{zz, crossref = {conf}, title = {Z}}',
          '@article{a1, doi = {10.1/x}, title = {A1}}',
          '@article{a2, doi = {10.1/x}, title = {A2}}',
          '',
        ].join('\r\n');
        writeFileSync(crlf, text);
        await openDoc(vscode.Uri.joinPath(dir, 't.md'), '---\nbibliography: crlf.bib\n---\nSee [@a2; @zz].\n');
        const t = await run<CitationCommandResult>(Commands.tidyBibliography);
        assert.equal(t?.done, true, t?.message);
        assert.deepEqual(
          t.removed?.map((x) => [x.key, x.keptKey]),
          [['a1', 'a2']],
        );
        const doc = vscode.workspace.textDocuments.find((d) => d.uri.path === crlf);
        assert.ok(doc);
        assert.deepEqual(
          [...doc.getText().matchAll(/^@\w+\{([^,]+),/gmu)].map((m) => m[1]),
          ['a2', 'zz', 'conf'],
        );
        assert.equal(doc.eol, vscode.EndOfLine.CRLF);
        assert.ok(bytesOf(crlf)?.equals(Buffer.from(text)), 'Tidy saved the file (the writer reviews first)');
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.files.revert');
      });
    },
  );
}
