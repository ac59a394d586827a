/**
 * The papers the toolchain suite cites: corpus papers of the emulator (as the service returns them), chosen so every
 * hostile form of title and name is there, plus papers the service may send that the corpus does not hold (no DOI,
 * no journal, no year, no authors; DOIs and URLs with `#` and `%`); the first few are cited under key schemes writers
 * set, with characters some syntax cannot hold in a key.
 */
import type { CitablePaper } from '../../src/bib/bibtex';
import type { Paper } from '../emulator/corpus';
import { coverageSample } from '../emulator/coverage';
import { corpusCitePaper } from '../unit/bib/corpusPaper';

export interface ToolchainPaper {
  paper: CitablePaper;
  /** Key scheme (the setting), when not the default. */
  scheme?: string;
}

/** Corpus papers: the emulator's sample covering every odd form of its corpus (test/emulator/coverage.ts). */
export function corpusSample(): { papers: Paper[]; forms: number; uncovered: string[] } {
  const sample = coverageSample(300);
  return { papers: sample.papers.map((s) => s.paper), forms: sample.forms.length, uncovered: sample.uncovered };
}

/** What the corpus lacks: hand-made, each a form the service may send. */
const EXTRA: ToolchainPaper[] = [
  { paper: { title: 'A paper with no DOI, journal or year', authors: ['Ana Lima'] } },
  { paper: { title: 'No authors at all', journal_name: 'Journal of Things', publish_year: 2019 } },
  {
    paper: {
      title: 'DOI and URL with hash and percent',
      authors: ['Kim Lee'],
      publish_year: 2020,
      journal_name: 'J',
      doi: '10.1000/abc#def%20g;h(1)<2>',
      url: 'https://example.org/a#frag%2Fx?q=50%',
    },
  },
  {
    paper: {
      title: 'Backticks: the `tidyverse` and ``dplyr`` packages',
      authors: ['Hadley Wickham'],
      publish_year: 2021,
      journal_name: 'J',
    },
  },
  {
    paper: {
      title: 'Greek in text: β-alanine, α-synuclein, TNF-α and κ-opioid receptors at ≥ 5 μM ± 2 × 10⁻³',
      authors: ['Eva Kovács'],
      publish_year: 2022,
      journal_name: 'J',
    },
  },
  {
    paper: {
      title: '“Curly” quotes, ‘single’ ones and Parkinson’s disease — an em dash… and an ellipsis',
      authors: ['Dara O’Neill'],
      publish_year: 2022,
      journal_name: 'J',
    },
  },
  {
    paper: {
      title: 'Every special: & % $ # _ { } ~ ^ \\ | < > [ ] *',
      authors: ['Sam Smith'],
      publish_year: 2023,
      journal_name: 'J & K',
    },
  },
  {
    paper: { title: 'A lone { brace and a lone } one', authors: ['Sam Jones'], publish_year: 2023, journal_name: 'J' },
  },
  {
    paper: {
      title: 'Air pollution in India and the Sahel: the Indo-Gangetic Basin during the Enlightenment',
      authors: ['Priya Nair'],
      publish_year: 2020,
      journal_name: 'Atmospheric Environment',
    },
  },
  {
    paper: {
      title: 'Air Pollution and Cognitive Decline in Older Adults: A Cohort Study in Scotland',
      authors: ['Iain MacLeod'],
      publish_year: 2018,
      journal_name: 'The Lancet',
    },
  },
  {
    paper: {
      title: 'Creatine and sleep',
      authors: [
        'Global Burden of Disease Collaborators',
        'WHO Task Force on Sleep',
        'The CREATINE Trial Investigators',
        'Writing Committee for the ACTIVE Study',
        'European Society of Cardiology and American Heart Association Working Group',
        'UK Biobank Consortium',
        'Ministry of Health',
        'Universidad Nacional Autónoma de México',
      ],
      publish_year: 2021,
      journal_name: 'Sleep',
    },
  },
  {
    paper: {
      title: 'Names in many scripts',
      authors: [
        '田中 裕子',
        '李伟',
        '김민준',
        'Иван Иванов',
        'Ελένη Παπαδοπούλου',
        'محمد العلي',
        'אברהם כהן',
        'प्रिया शर्मा',
        'สมชาย ใจดี',
        'Nguyễn Văn An',
        'Trương Thị Hồng',
        'Đặng Phạm',
        'Þórunn Ólafsdóttir',
        'Łukasz Żółć',
        'Jan van der Berg',
        'Martin Luther King Jr.',
        'Ludwig von Beethoven',
      ],
      publish_year: 2024,
      journal_name: 'J',
    },
  },
  {
    paper: {
      title: 'A preprint',
      authors: ['Zoë Ørsted'],
      publish_year: 2025,
      journal_name: 'medRxiv',
      is_preprint: true,
      doi: '10.1101/2025.01.01.123456',
    },
  },
];

/** Key schemes writers set, including characters some syntax cannot hold in a key. */
const SCHEMES = [
  '{author}+{year}',
  '{author}/{year}{title}',
  '{Author}{year}{Title}',
  '{author}_{year}',
  '{shorttitle}.{year}.',
  '-{author}:{year}-',
];

export function toolchainPapers(): ToolchainPaper[] {
  const corpus = corpusSample().papers;
  const papers: ToolchainPaper[] = corpus.map((p, i) => ({
    paper: corpusCitePaper(p),
    scheme: i < SCHEMES.length ? SCHEMES[i] : undefined,
  }));
  papers.push(...EXTRA);
  return papers;
}
