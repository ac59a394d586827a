/**
 * Linear time: every scanner over a document, a .bib entry or the service's text, on hostile inputs of 1 MB each
 * (long runs of the characters its patterns repeat, unclosed delimiters, many openers, deep nesting: linearTime.ts
 * builds them by family), finishes within the bound of linearTimeSuite. Before they were made linear, the scanners
 * marked * were quadratic or worse on some of these inputs: from 10 s to hours for 1 MB (the hover's decoding took
 * 11 minutes); the others were measured linear and are here so they stay so.
 *
 *   scanner                                          inputs              what could go super-linear
 *   citeTrigger: cheapFlavour                        text                the file-extension pattern
 *   citeTrigger: mayCompleteCitation                 every document      cite-command and `@key` patterns at the end
 *   citeTrigger: mayBeOnCiteKey *                    every document      the same with the key after the cursor
 *   citeTrigger: mayHaveCitations *, citationsPlausible *   the flavour's   any citation; a `---` line, `bibliography:`
 *   citeTrigger: mayCite                             the flavour's       the same, then `\bibliography[…]{`, `#bibliography(`
 *   syntax: findCitations * (and citedKeys *)        the flavour's       LaTeX, Pandoc, Typst citation patterns
 *   syntax: keyAt *, insertCitation * (citationAt *)  the flavour's      the paragraph around the cursor
 *   syntax: completionContext, formatLocator, fitCitationAt              the text just before / after the cursor
 *   locate: latexBibliographies *, texRoot *         LaTeX               comments, arguments, the magic comment
 *   locate: frontMatter, yamlBibliographies *        Markdown, YAML      front matter, YAML values and comments
 *   locate: typstBibliographies *, locateBibliographies *   Typst / all  strings, comments, #bibliography
 *   answer: convertAnswer *, codeRegions             answers             code spans against markers, marker groups
 *   answer: headingsAsParagraphs, footnoteLabelsIn    answers, documents  heading lines, footnote labels
 *   paperIdentity: tellApart                          service fields      journal words, URLs
 *   markup: answerMarkup *, markupText: escapeLatex, escapeTypst   answers   Markdown, URLs, fences, placeholders, ties
 *   render: renderAnswerDetailed *, exportAnswerMarkdown *, indexCitations *   answers, citations   linkify, markers
 *   render: escapeHtml, cleanText, safeHttpsUrl, splitForMarkdown   service text
 *   shared: escapeMarkdown, escapeInlineMarkdown     service text        Markdown punctuation, white space
 *   keys, names, reference                           service fields      names, title words, APA formatting
 *   texText: texText, texWords, pdflatexCannot       service fields      Greek runs, braces paired over the text
 *   display: displayLatex, citeMatch: rawText, rawFamilies, matchRank   .bib field values   accents, macros
 *   latexWords: textWords, familyWords                .bib field values   accents, macros, ` and `, names
 *   bibEntry: entryToPaper *                         a .bib entry        decoding a long field with the library (hover)
 *
 * More scanners (the .bib reader's, for one) join by adding rows to SCANNERS, or by passing a table of their own to
 * linearTimeSuite in another test file.
 */
import type { Citation } from '../../../src/api/schemas';
import {
  answerForDocument,
  codeRegions,
  convertAnswer,
  footnoteLabelsIn,
  headingsAsParagraphs,
} from '../../../src/bib/answer';
import { entryToPaper } from '../../../src/bib/bibEntry';
import { parseBibFile } from '../../../src/bib/bibFile';
import { baseKey, disambiguate } from '../../../src/bib/keys';
import { loadBibtexLibrary } from '../../../src/bib/library';
import {
  frontMatter,
  latexBibliographies,
  locateBibliographies,
  texRoot,
  typstBibliographies,
  yamlBibliographies,
} from '../../../src/bib/locate';
import { answerMarkup } from '../../../src/bib/markup';
import { safeChatMarkdown } from '../../../src/chat/answerMarkdown';
import { answerMarkdown as chatAnswerMarkdown, paperListMarkdown } from '../../../src/chat/chatMarkdown';
import { answerRecord } from '../../../src/chat/threadToolInput';
import { paperRecords } from '../../../src/chat/toolInput';
import { citePlaceholder, escapeLatex, escapeTypst } from '../../../src/bib/markupText';
import { asciiFold, parseName } from '../../../src/bib/names';
import { tellApart } from '../../../src/bib/paperIdentity';
import { pdflatexCannot, texText, texWords } from '../../../src/bib/texText';
import { formatReference, inTextCitation, initials } from '../../../src/bib/reference';
import {
  completionContext,
  findCitations,
  fitCitationAt,
  formatLocator,
  insertCitation,
  keyAt,
  type CiteFlavour,
} from '../../../src/bib/syntax';
import { matchRank } from '../../../src/citations/citeMatch';
import { rawFamilies, rawText } from '../../../src/citations/entryText';
import { displayLatex } from '../../../src/citations/display';
import { familyWords, textWords, WordBytes } from '../../../src/citations/latexWords';
import {
  cheapFlavour,
  citationsPlausible,
  mayBeOnCiteKey,
  mayCompleteCitation,
  mayCite,
  mayHaveCitations,
  type CheapFlavour,
} from '../../../src/shared/citeTrigger';
import { renderAnswerDetailed } from '../../../src/render/answer';
import { cleanText, escapeHtml, plainParagraphs, splitForMarkdown } from '../../../src/render/escape';
import { exportAnswerMarkdown } from '../../../src/render/exportMarkdown';
import { escapeInlineMarkdown, escapeMarkdown } from '../../../src/shared/markdown';
import { safeHttpsUrl } from '../../../src/shared/url';
import { indexCitations } from '../../../src/render/references';
import { linearTimeSuite, prepared, type Family, type HostileInput, type Scanner } from './linearTime';

const FLAVOURS = ['latex', 'pandoc', 'typst'] as const;
const ALL_DOCS: Family[] = ['latex', 'pandoc', 'typst', 'yaml', 'markdown'];
/** The input families of each flavour's documents. */
const OWN: Record<(typeof FLAVOURS)[number], Family[]> = {
  latex: ['latex'],
  pandoc: ['pandoc', 'yaml'],
  typst: ['typst'],
};
const middle = (s: string): number => s.length >> 1;

/** Citations whose every field is the hostile input (the service's text is untrusted). */
const hostileCitations = (s: string): Citation[] => [
  {
    n: 1,
    paper_id: 'p1',
    title: s,
    year: 2020,
    journal: s,
    url: s,
    snippets: [
      { marker: s, quote: s, section: s },
      { marker: '1.1', quote: 'q', section: null },
    ],
  },
  {
    n: 2,
    paper_id: 'p2',
    title: 'T',
    year: 2021,
    journal: 'J',
    url: 'https://a.org/x',
    snippets: [{ marker: '[2.1]', quote: 'q', section: null }],
  },
];
const CITATIONS = hostileCitations('x');
const KEYS = new Map([
  ['p1', 'a2020'],
  ['p2', 'b2021'],
]);

/** One row per document flavour, reading that flavour's hostile documents. */
const perFlavour = (
  name: string,
  run: (s: string, f: CiteFlavour) => unknown,
  families = (f: (typeof FLAVOURS)[number]) => OWN[f],
): Scanner[] => FLAVOURS.map((f) => ({ name: `${name} (${f})`, families: families(f), run: (s: string) => run(s, f) }));

/** A .bib entry with one huge field (each input is placed in the field, braces balanced). */
const hugeField =
  (field: string) =>
  (size: number): HostileInput[] =>
    [
      ['an abstract of accents and math', 'The effect of {\\"u}ber $x^2$ on memory. '],
      ['plain words', 'Lorem ipsum dolor sit amet. '],
      ['names', 'Smith, John and '],
    ].map(([what, unit]) => ({
      name: `a 1 MB ${field}: ${what!}`,
      text: `@article{k, title = {T}, author = {Doe, J.}, year = 2020, ${field} = {${unit!.repeat(Math.ceil(size / unit!.length))}}}`,
    }));

/** Scanners of one text each. */
const ROWS: Scanner[] = [
  { name: 'citeTrigger: cheapFlavour (file name)', run: (s) => cheapFlavour('', s) },
  ...perFlavour(
    'citeTrigger: mayCompleteCitation',
    (s, f) => mayCompleteCitation(s, f as CheapFlavour),
    () => ALL_DOCS,
  ),
  ...perFlavour(
    'citeTrigger: mayBeOnCiteKey',
    (s, f) => mayBeOnCiteKey(s, s, f as CheapFlavour),
    () => ALL_DOCS,
  ),
  ...perFlavour('citeTrigger: mayHaveCitations', (s, f) => mayHaveCitations(s, f as CheapFlavour)),
  ...perFlavour('citeTrigger: mayCite', (s, f) => mayCite(s, f as CheapFlavour)),
  {
    name: 'citeTrigger: citationsPlausible (pandoc)',
    families: OWN.pandoc,
    run: (s) => citationsPlausible(s, 'pandoc', 'a.md', () => s),
  },
  ...perFlavour('syntax: findCitations', (s, f) => findCitations(s, f)),
  ...perFlavour('syntax: keyAt', (s, f) => keyAt(s, middle(s), f)),
  ...perFlavour('syntax: insertCitation', (s, f) => insertCitation(s, middle(s), f, 'k', { locator: '4' })),
  ...perFlavour('syntax: completionContext', (s, f) => completionContext(s, s.length, f)),
  { name: 'syntax: formatLocator', run: (s) => formatLocator(s, 'latex') },
  {
    name: 'syntax: fitCitationAt',
    families: ALL_DOCS,
    run: (s) => FLAVOURS.map((f) => fitCitationAt(f, '@k', s, middle(s))),
  },
  { name: 'locate: latexBibliographies', families: OWN.latex, run: (s) => latexBibliographies(s) },
  { name: 'locate: texRoot', families: OWN.latex, run: (s) => texRoot(s) },
  { name: 'locate: frontMatter', families: OWN.pandoc, run: (s) => frontMatter(s) },
  { name: 'locate: yamlBibliographies', families: OWN.pandoc, run: (s) => yamlBibliographies(s) },
  { name: 'locate: typstBibliographies', families: OWN.typst, run: (s) => typstBibliographies(s) },
  ...perFlavour('locate: locateBibliographies', (s, f) => locateBibliographies(s, f, s)),
  ...(['pandoc', 'latex', 'typst', 'plain'] as const).map((f): Scanner => ({
    name: `answer: convertAnswer (${f}${f === 'pandoc' ? ', footnotes' : ''})`,
    families: ['markdown'],
    run: (s) => convertAnswer(s, CITATIONS, { flavour: f, keys: KEYS, footnotes: true }),
  })),
  {
    name: 'answer: convertAnswer (hostile citations)',
    run: (s) =>
      convertAnswer('[1.1] [2.1] [1]', hostileCitations(s), { flavour: 'pandoc', keys: KEYS, footnotes: true }),
  },
  { name: 'answer: codeRegions', families: ['markdown'], run: (s) => codeRegions(s) },
  { name: 'answer: headingsAsParagraphs', families: ['markdown'], run: (s) => headingsAsParagraphs(s) },
  { name: 'answer: footnoteLabelsIn', families: ['markdown', 'pandoc'], run: (s) => footnoteLabelsIn(s) },
  {
    name: "answer: answerForDocument (pandoc, footnotes, the document's labels)",
    families: ['markdown', 'pandoc'],
    run: (s) =>
      answerForDocument('[1.1] [2.1] [1]', CITATIONS, {
        flavour: 'pandoc',
        keys: KEYS,
        footnotes: true,
        documentText: s,
      }),
  },
  {
    name: 'paperIdentity: tellApart (journal, URL)',
    run: (s) => tellApart({ journal: s, url: s, id: 'a' }, { journal: `${s} x`, url: `${s}/`, id: 'a' }),
  },
  ...(['latex', 'typst'] as const).map((f): Scanner => ({
    name: `markup: answerMarkup (${f})`,
    families: ['markdown'],
    run: (s) => answerMarkup(`${s}${citePlaceholder(0)}`, f, { cite: () => (f === 'latex' ? '\\cite{a}' : '@a') }),
  })),
  { name: 'markupText: escapeLatex', run: (s) => escapeLatex(s) },
  { name: 'markupText: escapeTypst', run: (s) => escapeTypst(s) },
  { name: 'render: renderAnswerDetailed', families: ['markdown'], run: (s) => renderAnswerDetailed(s, CITATIONS) },
  {
    name: 'render: renderAnswerDetailed (hostile citations)',
    run: (s) => renderAnswerDetailed('[1.1] [1]', hostileCitations(s)),
  },
  {
    name: 'render: exportAnswerMarkdown',
    families: ['markdown'],
    run: (s) => exportAnswerMarkdown(s, CITATIONS, { title: s, url: s }),
  },
  {
    name: 'render: indexCitations (hostile citations, authors)',
    run: (s) => indexCitations([...hostileCitations(s), { ...CITATIONS[0]!, n: 3, authors: s }], ''),
  },
  { name: 'chat: safeChatMarkdown', families: ['markdown'], run: (s) => safeChatMarkdown(s) },
  {
    name: 'chat: answerRecord and answerMarkdown (hostile answer and citations)',
    families: ['markdown'],
    run: (s) =>
      chatAnswerMarkdown(
        answerRecord(
          {
            thread_id: 't',
            title: s,
            status: 'idle',
            url: s,
            interactions: [{ interaction_id: 'i', status: 'idle', response: s, citations: hostileCitations(s) }],
          },
          () => undefined,
        ),
        { citePaper: () => ({ title: s }), labels: { references: 'R', cite: 'C', untitled: 'U' } },
      ),
  },
  {
    name: 'chat: paperRecords and paperListMarkdown (hostile papers)',
    run: (s) =>
      paperListMarkdown(
        paperRecords([{ title: s, authors: [s, s], journal_name: s, takeaway: s, url: s, study_type: s }], () => s),
        { citePaper: () => ({ title: s, authors: [s] }), labels: { cite: 'C', key: 'K' } },
      ),
  },
  { name: 'shared: escapeMarkdown', run: (s) => escapeMarkdown(s) },
  { name: 'shared: escapeInlineMarkdown', run: (s) => escapeInlineMarkdown(s) },
  { name: 'render: escapeHtml', run: (s) => escapeHtml(s) },
  { name: 'render: cleanText', run: (s) => cleanText(s, Infinity) },
  { name: 'render: safeHttpsUrl', families: ['markdown'], run: (s) => safeHttpsUrl(s) },
  {
    name: 'render: splitForMarkdown / plainParagraphs',
    families: ['markdown'],
    run: (s) => plainParagraphs(splitForMarkdown(s, 1000)[1]),
  },
  { name: 'keys: baseKey (title)', run: (s) => baseKey({ title: s, authors: ['A'], publish_year: 2020 }) },
  { name: 'keys: baseKey (authors)', run: (s) => baseKey({ title: 't', authors: [s], publish_year: 2020 }) },
  { name: 'keys: baseKey (scheme)', run: (s) => baseKey({ title: 't' }, s) },
  {
    name: 'keys: disambiguate',
    run: (s) =>
      disambiguate(
        'a',
        s.split('', 20000).map((_c, i) => `a${i.toString(36)}`),
      ),
  },
  { name: 'names: parseName', run: (s) => parseName(s) },
  ...(['tex', 'unicode'] as const).map((t): Scanner => ({
    name: `texText: texText (${t})`,
    run: (s) => texText(s, t),
  })),
  { name: 'texText: texText (a name)', run: (s) => texText(s, 'tex', 'name') },
  {
    name: 'texText: texWords (title protection)',
    run: (s) => texWords(s.replace(/\s+/gu, ' '), 'tex', (w) => /\p{Lu}/u.test(w)),
  },
  ...(['bibtex', 'biber'] as const).map((v): Scanner => ({
    name: `texText: pdflatexCannot (${v})`,
    run: (s) => pdflatexCannot(s, v),
  })),
  { name: 'names: asciiFold', run: (s) => asciiFold(s) },
  { name: 'reference: formatReference (title)', run: (s) => formatReference({ title: s }, 'markdown') },
  { name: 'reference: formatReference (authors)', run: (s) => formatReference({ authors: [s] }, 'markdown') },
  { name: 'reference: initials', run: (s) => initials(s) },
  { name: 'reference: formatReference (venue)', run: (s) => formatReference({ journal_name: s }, 'text') },
  { name: 'reference: formatReference (pages)', run: (s) => formatReference({ pages: s }, 'text') },
  { name: 'reference: formatReference (DOI)', run: (s) => formatReference({ doi: s }, 'markdown') },
  { name: 'reference: formatReference (URL)', run: (s) => formatReference({ url: s }, 'markdown') },
  { name: 'reference: inTextCitation', run: (s) => inTextCitation({ title: s, authors: [s] }, s) },
  { name: 'display: displayLatex', families: ['latex', 'bibtex'], run: (s) => displayLatex(s) },
  { name: 'citeMatch: rawText', families: ['latex', 'bibtex'], run: (s) => rawText(s) },
  { name: 'citeMatch: rawFamilies', families: ['latex', 'bibtex'], run: (s) => rawFamilies(s) },
  { name: 'citeMatch: matchRank (title words)', run: (s) => matchRank('zz', { key: 'k', title: s, families: [] }) },
  { name: 'latexWords: textWords', families: ['latex', 'bibtex'], run: (s) => textWords(s, new WordBytes()) },
  { name: 'latexWords: familyWords', families: ['latex', 'bibtex'], run: (s) => familyWords(s, new WordBytes()) },
];

export const SCANNERS: Scanner<unknown>[] = [
  ...ROWS,
  prepared({
    name: 'bibEntry: entryToPaper, as hover reads an entry (an entry with a huge field)',
    extra: (size) => [
      ...hugeField('abstract')(size),
      ...hugeField('title')(size),
      ...hugeField('author')(size),
      ...hugeField('journal')(size),
    ],
    prepare: (s) => {
      // The generic inputs go in an abstract (braces made parentheses, so the entry stays whole).
      const file = parseBibFile(
        s.startsWith('@article{')
          ? s
          : `@article{k, title = {T}, abstract = {${s.replace(/[{}]/gu, (c) => (c === '{' ? '(' : ')'))}}}`,
      );
      return { file, entry: file.entries[0]! };
    },
    run: ({ file, entry }) => entryToPaper(file, entry),
  }),
];

linearTimeSuite('adversarial: linear time (documents, .bib entries and service text)', SCANNERS, {
  setup: loadBibtexLibrary,
});
