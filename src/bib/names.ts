/**
 * Author names as the service writes them ("Given Family", sometimes "Family, Given"), split into parts the way
 * BibTeX reads them ("First von Last" / "von Last, First"), plus ASCII folding for cite keys. Pure.
 */
import { lazy } from '../shared/lazy';

export interface PersonName {
  /** Family name without particle ("Berg" of "Jan van der Berg"); the whole name for a literal. */
  family: string;
  given?: string;
  /** Lower-case particle: "van der", "de", "von". */
  particle?: string;
  /** Generational suffix: "Jr.", "Sr.", "III" (BibTeX's "jr" part). */
  suffix?: string;
  /** An organisation or a name that must not be split ("WHO Study Group", "田中 裕子"). */
  literal?: boolean;
}

/**
 * A letter of a script whose names citation styles do not write "Given Family" (CJK, Devanagari, Tamil, Armenian…):
 * pandoc and Typst print such names family first without a space, BibTeX and biblatex given first, so a split name
 * comes out reordered ("裕子 田中", "शर्माप्रिया"). Such names are kept whole, as the service wrote them.
 */
const UNSPLIT_SCRIPT = lazy(
  () => /(?=\p{L})[^\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Hebrew}\p{Script=Arabic}]/u,
);
/**
 * Words that make an author an organisation ("Global Burden of Disease Collaborators", "The CREATINE Trial
 * Investigators", "WHO Task Force on …"): such a name is written braced whole, or BibTeX would take its last word
 * for a family name.
 */
const ORG_PATTERN =
  '&|(?<![\\p{L}\\p{N}])(?:' +
  [
    'groups?',
    'consortium',
    'consortia',
    'collaborat\\w*',
    'organi[sz]ations?',
    'society',
    'associations?',
    'committees?',
    'investigators',
    'trialists',
    'team',
    'institutes?',
    'institution',
    'networks?',
    'council',
    'agency',
    'foundation',
    'universit(?:y|ies|é|ät|at|ad|ade|à)',
    'working',
    'study',
    'task force',
    'party',
    'panel',
    'alliance',
    'initiative',
    'program(?:me)?',
    'ministry',
    'department',
    'office',
    'cent(?:er|re)',
    'commission',
    'board',
    'union',
    'federation',
    'registry',
    'project',
    'partnership',
    'coalition',
    'unit',
    'services?',
    'bureau',
    'secretariat',
    'authority',
    'college',
    'academy',
    'hospital',
    'clinic',
    'laborator(?:y|ies)',
    'forum',
    'surveillance',
    // The same in the languages organisations sign papers in most.
    'minist[eè]re',
    'ministerio',
    'ministero',
    'ministerium',
    'soci[ée]t[ée]',
    'sociedad',
    'società',
    'gesellschaft',
    'verein',
    'verband',
    'institut',
    'instituto',
    'istituto',
    'universit[äà]t',
    'universidade',
    'universidad',
    'consorcio',
    'groupe',
    'grupo',
    'gruppo',
    'arbeitsgruppe',
    'comité',
    'comit[eê]',
    'commissione',
    'kommission',
    'общество',
    'институт',
    'университет',
    'министерство',
    'ассоциация',
    'группа',
    'центр',
  ].join('|') +
  ')(?![\\p{L}\\p{N}])';
const ORG = lazy(() => new RegExp(ORG_PATTERN, 'iu'));

/** An acronym in parentheses ("… Schlafmedizin (DGSM)"): organisations sign that way, people do not. */
const ACRONYM_IN_PARENTHESES = lazy(() => /\((?:[\p{Lu}\d][\p{Lu}\d-]+)\)/u);
/**
 * Words that make even a two-word name an organisation ("ATLAS Collaboration"); the others need three words or more,
 * since some are surnames too ("Maria Gruppo", "Anna Groupe").
 */
const STRONG_ORG = lazy(
  () =>
    /(?<![\p{L}\p{N}])(?:consorti(?:um|a)|collaborat\w*|investigators|trialists|committee|task force|network|alliance|initiative|ministry|society|association)(?![\p{L}\p{N}])/iu,
);

/** Normalise white space (tabs, newlines, NBSP) to single spaces and trim. */
export const squash = (s: string): string => s.replace(/\s+/gu, ' ').trim();

/** A lower-case word that is not an initial ("van", "de", "'t" of "van 't Veer"). */
const isParticle = (w: string): boolean => /^['’]?\p{Ll}/u.test(w) && !/^\p{Ll}\./u.test(w);

/** A generational suffix, written after the name ("Martin Luther King Jr.") or as its own comma part. */
const SUFFIX = /^(?:jr\.?|sr\.?|jnr\.?|snr\.?|ii|iii|iv|v|2nd|3rd|4th)$/iu;

/** Split one author string into name parts. */
export function parseName(raw: string): PersonName {
  const whole = squash(raw);
  if (!whole) return { family: '', literal: true };
  const words = whole.split(' ').length;
  if (
    (ORG().test(whole) && (words > 2 || STRONG_ORG().test(whole))) ||
    (ACRONYM_IN_PARENTHESES().test(whole) && words > 1)
  )
    return { family: whole, literal: true };
  // "King, Jr., Martin Luther" and "Martin Luther King Jr." (or "…King, Jr."): the suffix is set apart first.
  const parts = whole.split(/\s*,\s*/u);
  let suffix: string | undefined;
  let name = whole;
  if (parts.length === 3 && SUFFIX.test(parts[1]!)) {
    suffix = parts[1];
    name = `${parts[0]!}, ${parts[2]!}`;
  } else if (parts.length === 2 && SUFFIX.test(parts[1]!)) {
    suffix = parts[1];
    name = parts[0]!;
  } else {
    const words = whole.split(' ');
    if (words.length > 2 && !whole.includes(',') && SUFFIX.test(words[words.length - 1]!)) {
      suffix = words.pop();
      name = words.join(' ');
    }
  }
  const n = parseParts(name);
  // A suffix belongs with a given name ("Smith, Jr." alone is read as before: no way to tell).
  return suffix && n.given && !n.literal ? { ...n, suffix } : parseParts(whole);
}

function parseParts(name: string): PersonName {
  const comma = name.indexOf(',');
  if (comma > 0) {
    const last = name.slice(0, comma).trim();
    const given = name.slice(comma + 1).trim();
    const words = last.split(' ');
    let i = 0;
    while (i < words.length - 1 && isParticle(words[i]!)) i++;
    return clean({ family: words.slice(i).join(' '), given, particle: words.slice(0, i).join(' ') });
  }
  if (UNSPLIT_SCRIPT().test(name)) return { family: name, literal: true };
  const words = name.split(' ');
  if (words.length === 1) return { family: name };
  // "First von Last": the von part starts at the first lower-case word that is not the last word.
  const v = words.findIndex((w, i) => i > 0 && i < words.length - 1 && isParticle(w));
  if (v < 0) return clean({ family: words[words.length - 1]!, given: words.slice(0, -1).join(' ') });
  let e = v;
  while (e < words.length - 1 && isParticle(words[e]!)) e++;
  return clean({
    family: words.slice(e).join(' '),
    given: words.slice(0, v).join(' '),
    particle: words.slice(v, e).join(' '),
  });
}

function clean(n: PersonName): PersonName {
  const out: PersonName = { family: n.family };
  if (n.given) out.given = n.given;
  if (n.particle) out.particle = n.particle;
  if (n.literal) out.literal = true;
  if (n.suffix) out.suffix = n.suffix;
  return out;
}

/** "van der Berg, Jan" display form (particle + family first). */
export function familyFirst(n: PersonName): string {
  const fam = n.particle ? `${n.particle} ${n.family}` : n.family;
  return n.given && !n.literal ? `${fam}, ${n.suffix ? `${n.suffix}, ` : ''}${n.given}` : fam;
}

const FOLD: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
  ŋ: 'ng',
  Ŋ: 'NG',
  ĸ: 'k',
};

/**
 * Fold to ASCII letters and digits: accents dropped (NFKD), a few letters mapped (ß→ss, ø→o, ł→l), everything
 * else removed. Scripts without a Latin reading (CJK, Cyrillic, Arabic…) fold to the empty string.
 */
export function asciiFold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/gu, '')
    .replace(/[^ -~]/gu, (c) => FOLD[c] ?? '')
    .replace(/[^A-Za-z0-9]/gu, '');
}
