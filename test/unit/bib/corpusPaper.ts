/** An emulator corpus paper with the fields a citation uses, as the service returns them (tests and bench/cite.ts). */
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
