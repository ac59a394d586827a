/**
 * The service's study-design values as a writer reads them. Requests keep the service's values (`rct`, `non-rct in
 * vitro`); every place a person sees one shows its label, so "randomi…" finds a trial and no raw code shows. Pure;
 * both bundles and the webviews use it.
 */
import type { StudyType } from '../api/vocab';

export const STUDY_TYPE_LABELS = {
  'bench experiment': 'Bench experiment',
  'case report': 'Case report',
  'case study': 'Case study',
  'case-control study': 'Case-control study',
  'cohort study': 'Cohort study',
  'commentary or perspective': 'Commentary or perspective',
  'cross-sectional study': 'Cross-sectional study',
  'field study': 'Field study',
  'historical or archival analysis': 'Historical or archival analysis',
  'interview study': 'Interview study',
  'literature review': 'Literature review',
  'longitudinal / panel data study': 'Longitudinal or panel study',
  'meta-analysis': 'Meta-analysis',
  'mixed methods study': 'Mixed-methods study',
  'non-randomized experimental study': 'Non-randomized experimental study',
  'non-rct in vitro': 'In vitro study',
  other: 'Other design',
  rct: 'Randomized controlled trial (RCT)',
  'systematic review': 'Systematic review',
  'theoretical, modeling, or simulation study': 'Theoretical, modelling or simulation study',
  'non-rct experimental': 'Non-randomized experiment',
  'non-rct observational study': 'Observational study (non-randomized)',
  animal: 'Animal study',
} as const satisfies Record<StudyType, string>;

/** The label of a study-design value; a value the table does not know is shown as the service wrote it. */
export function studyTypeLabel(value: string | null | undefined): string {
  const v = (value ?? '').trim();
  return (STUDY_TYPE_LABELS as Record<string, string>)[v.toLowerCase()] ?? v;
}
