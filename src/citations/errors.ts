/**
 * The failures the citation code reports in words for the writer: thrown where a bibliography is found, checked or
 * written, caught and shown as they are by the commands, the inserter, completion and Insert Answer. Apart so that
 * every part can throw them without importing the bibliography service.
 */

/** A citation command's failure, in words for the writer (shown as it is). */
export class CitationError extends Error {}
/** A bibliography changed between reading it and writing to it: computed again, or the writer tries again. */
export class StaleBibliography extends CitationError {}
