/**
 * Study types as a person reads them ("Randomized controlled trial" for `rct`, "In vitro study" for
 * `non-rct in vitro`). Requests keep the service's values (src/api/vocab.ts); only what is shown is a label. Pure:
 * the caller passes its translator (`vscode.l10n.t` on the host), and each label is written out as a literal so the
 * strings can be found for translation.
 */

/** A translator: the English text in, the display language's text out. */
export type Translate = (english: string) => string;

const same: Translate = (s) => s;

/** The label of a study type the service names; a value it does not list is shown as it came, first letter raised. */
export function studyTypeLabel(value: string | null | undefined, t: Translate = same): string {
  const v = (value ?? '').trim();
  switch (v.toLowerCase()) {
    case '':
      return '';
    case 'rct':
      return t('Randomized controlled trial');
    case 'meta-analysis':
      return t('Meta-analysis');
    case 'systematic review':
      return t('Systematic review');
    case 'literature review':
      return t('Literature review');
    case 'bench experiment':
      return t('Bench experiment');
    case 'case report':
      return t('Case report');
    case 'case study':
      return t('Case study');
    case 'case-control study':
      return t('Case-control study');
    case 'cohort study':
      return t('Cohort study');
    case 'commentary or perspective':
      return t('Commentary or perspective');
    case 'cross-sectional study':
      return t('Cross-sectional study');
    case 'field study':
      return t('Field study');
    case 'historical or archival analysis':
      return t('Historical or archival analysis');
    case 'interview study':
      return t('Interview study');
    case 'longitudinal / panel data study':
      return t('Longitudinal or panel data study');
    case 'mixed methods study':
      return t('Mixed-methods study');
    // The search vocabulary's and the agent's names for the same design get one label.
    case 'non-randomized experimental study':
    case 'non-rct experimental':
      return t('Non-randomized experimental study');
    case 'non-rct observational study':
      return t('Non-randomized observational study');
    case 'non-rct in vitro':
      return t('In vitro study');
    case 'theoretical, modeling, or simulation study':
      return t('Theoretical, modeling or simulation study');
    case 'animal':
      return t('Animal study');
    case 'other':
      return t('Other study type');
    default:
      return v.charAt(0).toUpperCase() + v.slice(1);
  }
}
