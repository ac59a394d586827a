/** A small .bib the unit tests of src/bib read: an @string, a braced entry with a DOI, a parenthesised one without. */
export const GOOD = `% My references
@string{plos = "PLOS ONE"}

@article{smith2020dna,
  author = {Smith, Anna and Sandk{\\"u}hler, J{\\"u}rgen},
  title = {{DNA} repair in {\\"O}sterreich},
  journal = plos,
  year = 2020,
  doi = {10.1000/ABC.123}
}

@book(jones2019book, title = "A {Book} with {\\"u}mlaut {"}quotes{"}", year = {2019}, publisher = {X} # { and } # {Y})
`;
