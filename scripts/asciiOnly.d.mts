/** The types of asciiOnly.mjs, for the tests that import it. */
export function escapeNonAscii(text: string): string;
