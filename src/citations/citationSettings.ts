/**
 * The `researchDesk.citations.*` settings as a write reads them, for the document's resource scope, each checked
 * (a LaTeX command of letters only, a key scheme of at most 200 characters with a placeholder), and whether the default
 * bibliography's path came from the workspace's settings. Apart from bibliography.ts because the inserter, completion,
 * Insert Answer, the Quick Pick and the finding of bibliographies all read them.
 */
import * as vscode from 'vscode';
import type { TitleProtection } from '../bib/bibtex';
import { DEFAULT_KEY_SCHEME } from '../bib/keys';
import { Settings } from '../platform/ids';

export const CITATION_SETTINGS = 'researchDesk.citations';

/** The settings a write uses, read for the document's resource scope. */
export function citationSettings(scope?: vscode.Uri): {
  defaultBibliography: string;
  /** Whether the default bibliography comes from the workspace's settings (a repository's), not the writer's. */
  defaultFromWorkspace: boolean;
  keyScheme: string;
  titleProtection: TitleProtection;
  latexCommand: string;
  askLocator: boolean;
} {
  const c = vscode.workspace.getConfiguration(CITATION_SETTINGS, scope);
  const scheme = c.get<string>('keyScheme', DEFAULT_KEY_SCHEME);
  const protection = c.get<string>('titleProtection', 'capitals');
  const command = (c.get<string>('latexCommand', 'cite') ?? 'cite').trim().replace(/^\\/u, '');
  const defaultBibliography = (c.get<string>('defaultBibliography', 'references.bib') ?? '').trim();
  // VS Code withholds a restricted setting's workspace value in Restricted Mode; where it applies, the writer is told
  // that the path came from the repository.
  const inspected = vscode.workspace.getConfiguration(undefined, scope).inspect<string>(Settings.citationsDefaultBibliography);
  const fromWorkspace = [inspected?.workspaceFolderValue, inspected?.workspaceValue].some((v) => typeof v === 'string' && v.trim() === defaultBibliography);
  return {
    defaultBibliography,
    defaultFromWorkspace: fromWorkspace && inspected?.globalValue?.trim() !== defaultBibliography,
    keyScheme: typeof scheme === 'string' && scheme.length <= 200 && /\{[A-Za-z]+\}/u.test(scheme) ? scheme : DEFAULT_KEY_SCHEME,
    titleProtection: protection === 'all' || protection === 'none' || protection === 'acronyms' ? protection : 'capitals',
    latexCommand: /^[A-Za-z]+\*?$/u.test(command) ? command : 'cite',
    askLocator: c.get<boolean>('askLocator', false) === true,
  };
}
