/**
 * The file name Export as Markdown proposes for an answer. Pure: no `vscode`, unit-tested in plain Node.
 *
 * A name must be valid on every system the file may travel to: Windows refuses `<>:"/\|?*`, control characters, names
 * ending in a dot or a space and the device names (CON, NUL, COM1…), macOS and Linux refuse `/` and NUL; and it is
 * cut between words, so that it still reads as the title it comes from.
 */

/** At most this many characters before `.md`: short enough for any path, long enough to read. */
export const EXPORT_NAME_MAX = 60;

const WINDOWS_DEVICES = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/iu;

/** The base name (without `.md`) for a title; `fallback` when the title leaves nothing. */
export function exportFileName(title: string | null | undefined, fallback = 'answer'): string {
  const words = (title ?? '')
    .normalize('NFC')
    // Apostrophes join their word ("Children's" → "Childrens"); every other mark, symbol or control separates words.
    .replace(/['’ʼ]/gu, '')
    .replace(/[^\p{L}\p{M}\p{N}_-]+/gu, ' ')
    .trim()
    .split(' ')
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
  let name = '';
  for (const word of words) {
    const next = name ? `${name} ${word}` : word;
    if ([...next].length <= EXPORT_NAME_MAX) {
      name = next;
      continue;
    }
    // The first word alone is too long (a long compound, a script written without spaces): cut it.
    if (!name) name = [...word].slice(0, EXPORT_NAME_MAX).join('');
    break;
  }
  name = name.replace(/^[-_]+|[-_]+$/gu, '');
  if (!name) return fallback;
  return WINDOWS_DEVICES.test(name) ? `${name} ${fallback}` : name;
}

/** `base.md`, else `base (2).md`, `base (3).md`… the first name `taken` says is free (at most 99 tries). */
export async function freeName(base: string, taken: (name: string) => Promise<boolean>): Promise<string> {
  for (let n = 1; n < 100; n++) {
    const name = n === 1 ? `${base}.md` : `${base} (${n}).md`;
    if (!(await taken(name))) return name;
  }
  return `${base} (${Date.now()}).md`;
}
