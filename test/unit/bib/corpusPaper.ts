/**
 * Emulator corpus papers as the service returns them: the fields a citation uses (tests and bench/cite.ts), and the
 * fields a search result shows (the evidence table's tests and bench/table.ts).
 */
import type { Paper as SearchPaper } from '../../../src/api/index';
import type { CitePaper } from '../../../src/citations/types';
import type { Paper } from '../../emulator/corpus';

export function corpusCitePaper(p: Paper): CitePaper {
  return {
    id: p.id,
    title: p.title,
    authors: p.authors,
    journal_name: p.journal,
    publish_year: p.year,
    publish_date: p.publishDate,
    volume: p.volume ?? null,
    pages: p.pages ?? null,
    doi: p.doi,
    url: p.url,
    publisher_name: p.publisher,
    is_preprint: p.isPreprint,
  };
}

export function corpusSearchPaper(p: Paper): SearchPaper {
  return {
    title: p.title,
    abstract: p.abstract,
    authors: p.authors,
    doi: p.doi,
    journal_name: p.journal,
    pages: p.pages ?? null,
    volume: p.volume ?? null,
    publish_year: p.year,
    url: p.url,
    citation_count: p.citationCount,
    study_type: p.studyType,
    takeaway: p.takeaway,
    sjr_best_quartile: p.sjrQuartile,
    sample_size: p.sampleSize,
    population_type: p.populationType,
    is_preprint: p.isPreprint,
    study_duration_days: p.durationDays,
  };
}
