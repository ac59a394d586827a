import * as assert from 'node:assert/strict';
import { apaAuthors, formatReference, initials, inTextCitation } from '../../../src/bib/reference';

const paper = {
  title: 'Creatine supplementation and memory: a *randomized* trial',
  authors: ['Jürgen Sandkühler', 'Łukasz Nowak', 'Jan van der Berg'],
  journal_name: 'PLOS ONE',
  publish_year: 2023,
  volume: '16',
  pages: '2366-2370',
  doi: 'https://doi.org/10.3590/PLOS-ONE.2012.00001',
  url: 'https://consensus.app/papers/x/abc/',
};

describe('bib/reference (APA 7)', () => {
  it('initials: hyphenated and multiple given names', () => {
    assert.equal(initials('Jean-Pierre Marie'), 'J.-P. M.');
    assert.equal(initials('łukasz'), 'Ł.');
    assert.equal(initials('J. R. R.'), 'J. R. R.');
  });

  it('author lists: one, two, up to 20, then the first 19, an ellipsis and the last', () => {
    assert.equal(apaAuthors(['Anna Smith']), 'Smith, A.');
    assert.equal(apaAuthors(['Anna Smith', 'Bo Li']), 'Smith, A., & Li, B.');
    assert.equal(apaAuthors(['WHO Study Group']), 'WHO Study Group');
    const many = Array.from({ length: 25 }, (_, i) => `Given${i} Family${i}`);
    const s = apaAuthors(many);
    assert.match(s, /^Family0, G\., Family1, G\., .*Family18, G\., \. \. \. Family24, G\.$/u);
    assert.doesNotMatch(s, /Family19/u);
  });

  it('plain text reference with DOI link', () => {
    assert.equal(
      formatReference(paper),
      'Sandkühler, J., Nowak, Ł., & van der Berg, J. (2023). Creatine supplementation and memory: a *randomized* trial. PLOS ONE, 16, 2366–2370. https://doi.org/10.3590/plos-one.2012.00001',
    );
  });

  it('Markdown reference: italics for journal and volume, service text escaped', () => {
    assert.equal(
      formatReference(paper, 'markdown'),
      'Sandkühler, J\\., Nowak, Ł\\., & van der Berg, J\\. \\(2023\\)\\. Creatine supplementation and memory: a \\*randomized\\* trial\\. *PLOS ONE*, *16*, 2366–2370. <https://doi.org/10.3590/plos-one.2012.00001>'.replace(
        '\\(2023\\)\\.',
        '(2023).',
      ),
    );
    const evil = formatReference(
      { title: '[click](javascript:alert(1)) <img src=x>', authors: ['A B'], url: 'https://x.org/a b<c>' },
      'markdown',
    );
    assert.doesNotMatch(evil, /\]\(/u);
    assert.doesNotMatch(evil, /(?<!\\)<img/u);
    assert.match(evil, /<https:\/\/x\.org\/a%20b%3Cc%3E>$/u);
  });

  it('preprints, missing authors, missing year, URL when no DOI', () => {
    assert.equal(
      formatReference({
        title: 'New result',
        authors: ['Ann Lee'],
        journal_name: 'medRxiv',
        publish_year: 2024,
        volume: '1',
      }),
      'Lee, A. (2024). New result [Preprint]. medRxiv.',
    );
    assert.equal(
      formatReference({ title: 'Anonymous work?', url: 'https://x.org/p' }),
      'Anonymous work? (n.d.). https://x.org/p',
    );
  });

  it('in-text citations', () => {
    assert.equal(inTextCitation({ authors: ['Anna Smith'], publish_year: 2020 }), '(Smith, 2020)');
    assert.equal(inTextCitation({ authors: ['Anna Smith', 'Bo Li'], publish_year: 2020 }), '(Smith & Li, 2020)');
    assert.equal(inTextCitation(paper, '4'), '(Sandkühler et al., 2023, p. 4)');
    assert.equal(inTextCitation({ title: 'Untitled' }), '(Untitled, n.d.)');
  });
});
