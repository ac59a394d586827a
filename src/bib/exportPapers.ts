/**
 * Papers exported as a file a reference manager or a bibliography reads: BibTeX (the entries Insert Citation writes:
 * `toBibtex` with keys from `citeKey`), RIS (ris.ts) and CSL-JSON (cslJson.ts). One paper has one key in all three
 * (the BibTeX key is the CSL-JSON `id`), so files exported from the same papers agree. Pure.
 */
import { toBibtex, type TitleProtection } from './bibtex';
import { cslJsonFile, toCsl } from './cslJson';
import { citeKey, DEFAULT_KEY_SCHEME } from './keys';
import { risFile, toRis, type ExportPaper } from './ris';

export type ExportFormat = 'bibtex' | 'ris' | 'csl-json';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['bibtex', 'ris', 'csl-json'];

/** The file name extension of each format (what the save dialog offers and what readers look for). */
export const EXPORT_EXTENSIONS: Readonly<Record<ExportFormat, string>> = {
  bibtex: 'bib',
  ris: 'ris',
  'csl-json': 'json',
};

/** A paper with what the RIS export adds as a keyword and a note. */
export type ExportablePaper = ExportPaper & { study_type?: string | null; takeaway?: string | null };

export interface ExportOptions {
  /** The key scheme (the `citations.keyScheme` setting). */
  keyScheme?: string;
  /** Which capitals a BibTeX title braces (the `citations.titleProtection` setting). */
  protectTitle?: TitleProtection;
  /** The study type as a person reads it (RIS keyword); the service's value when absent. */
  studyTypeLabel?: (studyType: string) => string;
}

/** A key for each paper, distinct within the export (a, b… appended on a clash, as in a bibliography). */
export function exportKeys(papers: readonly ExportablePaper[], scheme = DEFAULT_KEY_SCHEME): string[] {
  const used = new Set<string>();
  return papers.map((p) => {
    const key = citeKey(p, used, scheme);
    used.add(key);
    return key;
  });
}

export function exportPapers(
  papers: readonly ExportablePaper[],
  format: ExportFormat,
  options: ExportOptions = {},
): string {
  if (format === 'ris') {
    const label = options.studyTypeLabel ?? ((s: string) => s);
    return risFile(
      papers.map((p) =>
        toRis(p, {
          keywords: p.study_type?.trim() ? [label(p.study_type.trim())] : [],
          note: p.takeaway ?? undefined,
        }),
      ),
    );
  }
  const keys = exportKeys(papers, options.keyScheme);
  if (format === 'csl-json') return cslJsonFile(papers.map((p, i) => toCsl(p, keys[i]!)));
  // A .bib of its own is read by LaTeX and pandoc alike: the 'tex' forms (texText.ts).
  const entries = papers.map((p, i) => toBibtex(p, keys[i]!, { protectTitle: options.protectTitle, target: 'tex' }));
  return entries.length ? `${entries.join('\n\n')}\n` : '';
}
