import * as assert from 'node:assert/strict';
import { tidyBibliography } from '../../../src/bib/bibTidy';

describe('bib/bibTidy', () => {
  it('tidy: removes later duplicates by DOI, sorts by key, keeps directives first and comments with their entry', () => {
    const text = [
      '@string{j = "Journal"}',
      '@article{zeta, doi = {10.1/A}, title = {Z}}',
      '% about alpha',
      '@article{alpha, title = {A}}',
      '@article{Beta, doi = {https://doi.org/10.1/a}, title = {B dup}}',
      '@article{gamma, title = {G}}',
    ].join('\n');
    const r = tidyBibliography(text, ['alpha', 'ZETA']);
    assert.deepEqual(r.removed, [{ key: 'Beta', keptKey: 'zeta', doi: '10.1/a' }]);
    assert.deepEqual(r.uncited, ['gamma']);
    assert.equal(
      r.text,
      [
        '@string{j = "Journal"}',
        '% about alpha\n@article{alpha, title = {A}}',
        '@article{gamma, title = {G}}',
        '@article{zeta, doi = {10.1/A}, title = {Z}}',
      ].join('\n\n') + '\n',
    );
    assert.deepEqual(tidyBibliography(r.text).removed, [], 'idempotent');
    assert.equal(tidyBibliography(r.text).text, r.text);
  });

  it("tidy keeps the file's header on top; a comment right above the first entry travels with it", () => {
    const header = '% Encoding: UTF-8\n% Shared bibliography of the lab';
    const text = `${header}\n\n@article{zeta, title = {Z}}\n\n@article{alpha, title = {A}}\n`;
    const r = tidyBibliography(text);
    assert.equal(r.text, `${header}\n\n@article{alpha, title = {A}}\n\n@article{zeta, title = {Z}}\n`);
    assert.equal(tidyBibliography(r.text).text, r.text, 'idempotent');
    // CRLF files too.
    const crlf = text.replace(/\n/g, '\r\n');
    assert.equal(tidyBibliography(crlf).text, r.text.replace(/\n/g, '\r\n'));
    // No blank line: the comment is the first entry's, and moves with it.
    const own = '% about zeta\n@article{zeta, title = {Z}}\n\n@article{alpha, title = {A}}\n';
    assert.equal(
      tidyBibliography(own).text,
      '@article{alpha, title = {A}}\n\n% about zeta\n@article{zeta, title = {Z}}\n',
    );
  });

  it('tidy refuses to move text of a file with errors', () => {
    const r = tidyBibliography('@article{a, title = {x}\n@article{b, title={y}}');
    assert.equal(r.text, undefined);
    assert.equal(r.diagnostics[0]?.severity, 'error');
  });
});
