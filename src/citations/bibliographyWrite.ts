/**
 * What may be written to a .bib, and how, for bibliography.ts: only .bib files (never a directory, device or pipe by
 * that name); one outside the workspace folders, reached through a symbolic link or not existing yet only after the
 * writer says yes (`WritePermissions`, asked once per file and session; a path from a setting or a document can point
 * anywhere). Bytes are appended in the file's encoding (`isUtf8`, `encodes`), checked unchanged right before
 * (`checkUnchanged`) and put back when the document's edit is refused (`putBack`). The sentences the writer reads
 * when a write is refused are here too. Apart from bibliography.ts, which decides what to write and when.
 */
import * as vscode from 'vscode';
import type { AppendBlocker } from '../bib/bibAppend';
import { Settings } from '../platform/ids';
import { isBib, regularFile } from './bibliographyFind';
import { CitationError, StaleBibliography } from './errors';
import { byteLength, holdsBytes, joinBytes, statUri } from './fileAccess';
import type { LoadedBibliography } from './types';

/** Whether a .bib's encoding is UTF-8 (with a BOM or not): new text is written as UTF-8 bytes, no round trip needed. */
export const isUtf8 = (encoding: string): boolean => encoding === 'utf8' || encoding === 'utf8bom';

/** Why the writer is asked before a file is written. */
export interface WriteQuestion {
  /** Outside every workspace folder, or reached through a symbolic link (it may lead anywhere). */
  outside: boolean;
  link: boolean;
  /** It does not exist yet: it would be created. */
  create: boolean;
  /** The path came from the workspace's `defaultBibliography` setting. */
  fromWorkspaceSetting: boolean;
}

/** Bytes appended to a file by `apply` (or the file created with them). */
export interface PendingWrite {
  uri: vscode.Uri;
  /** The file's bytes when read, in pieces (absent: the file did not exist). */
  before: readonly Uint8Array[] | undefined;
  /** The bytes appended: `appended` in the file's encoding. */
  tail: Uint8Array;
  base: LoadedBibliography;
  appended: string;
}

/** The files the writer allowed to be written this session, and the question asked for the others. */
export class WritePermissions {
  /** Files the writer allowed us to write this session (answered yes, or chose themselves). */
  private readonly approved = new Set<string>();

  /** `confirm` asks the writer whether a file may be written. */
  constructor(private readonly confirm: (uri: vscode.Uri, why: WriteQuestion) => Promise<boolean>) {}

  /** The writer chose this file themselves (a save dialog, the .bib they are editing): written without asking. */
  approve(uri: vscode.Uri): void {
    if (this.writableName(uri)) this.approved.add(uri.toString());
  }

  /** Only .bib files are written (and untitled buffers, which are not files). */
  writableName(uri: vscode.Uri): boolean {
    return uri.scheme === 'untitled' || isBib(uri.path);
  }

  /**
   * Whether new entries may be written to `uri`: a .bib inside a workspace folder that exists (and is reached without
   * a symbolic link) may; another is written only if the writer says yes, asked once per file and session. Throws
   * CitationError for a file that is not a .bib (never written, whatever the writer or a setting says).
   */
  async permitWrite(uri: vscode.Uri, context: { fromWorkspaceSetting?: boolean } = {}): Promise<boolean> {
    if (!this.writableName(uri)) throw new CitationError(notBibMessage(uri, context.fromWorkspaceSetting));
    const id = uri.toString();
    if (uri.scheme === 'untitled') return true;
    // A directory, a device or a pipe by a .bib name (a repository can hold such links): never written.
    const any = await statUri(uri);
    if (any && !(any.type & vscode.FileType.File))
      throw new CitationError(vscode.l10n.t('{0} is not a regular file; nothing was written.', shown(uri)));
    if (this.approved.has(id)) return true;
    const open = vscode.workspace.textDocuments.some((d) => d.uri.toString() === id && !d.isClosed);
    const exists = open || any !== undefined;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const link = folder ? await throughLink(folder.uri, uri) : false;
    if (folder && !link && exists) return true;
    const yes = await this.confirm(uri, {
      outside: !folder || link,
      link,
      create: !exists,
      fromWorkspaceSetting: context.fromWorkspaceSetting === true,
    });
    if (yes) this.approved.add(id);
    return yes;
  }

  /** Forgets every answer (tests). */
  clear(): void {
    this.approved.clear();
  }
}

/** Whether a folder or the file on the way from `root` to `uri` is a symbolic link (which may lead anywhere). */
async function throughLink(root: vscode.Uri, uri: vscode.Uri): Promise<boolean> {
  const rootPath = root.path.replace(/\/+$/u, '');
  const rest = uri.path.slice(rootPath.length).split('/').filter(Boolean);
  let at = root;
  for (const part of rest) {
    at = vscode.Uri.joinPath(at, part);
    const s = await statUri(at);
    if (!s) return false;
    if (s.type & vscode.FileType.SymbolicLink) return true;
  }
  return false;
}

/** The file is as it was read (same bytes; no unsaved changes started meanwhile), or StaleBibliography. */
export async function checkUnchanged(w: PendingWrite): Promise<void> {
  const stale = (): StaleBibliography =>
    new StaleBibliography(
      vscode.l10n.t(
        '{0} changed while the citation was prepared; nothing was written. Try again.',
        vscode.workspace.asRelativePath(w.uri),
      ),
    );
  if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === w.uri.toString() && d.isDirty)) throw stale();
  const stat = await regularFile(w.uri);
  if (!w.before) {
    if (stat) throw stale();
    return;
  }
  if (!stat || stat.size !== byteLength(w.before) || !(await holdsBytes(w.uri, w.before))) throw stale();
}

/** Undoes bytes written by `apply` (the file as it was, or deleted when it was created). */
export async function putBack(done: readonly PendingWrite[]): Promise<void> {
  for (const w of done) {
    try {
      if (w.before) await vscode.workspace.fs.writeFile(w.uri, joinBytes(w.before));
      else await vscode.workspace.fs.delete(w.uri);
    } catch {
      // Nothing more can be done; the next read shows the file as it is.
    }
  }
}

/** Whether `encoding` holds every character of `text` (it reads back the same). */
export async function encodes(text: string, encoding: string): Promise<boolean> {
  try {
    return (await vscode.workspace.decode(await vscode.workspace.encode(text, { encoding }), { encoding })) === text;
  } catch {
    return false;
  }
}

/** A path for the writer: relative inside the workspace, the whole path outside it. */
const shown = (uri: vscode.Uri): string =>
  vscode.workspace.getWorkspaceFolder(uri)
    ? vscode.workspace.asRelativePath(uri)
    : uri.scheme === 'file'
      ? uri.fsPath
      : uri.path;

export function notBibMessage(uri: vscode.Uri, fromWorkspaceSetting?: boolean): string {
  return fromWorkspaceSetting
    ? vscode.l10n.t(
        'This workspace\'s setting "{0}" names {1}, which is not a BibTeX file (.bib). Research Desk writes only .bib files; nothing was written.',
        Settings.citationsDefaultBibliography,
        shown(uri),
      )
    : vscode.l10n.t(
        '{0} is not a BibTeX file (.bib). Research Desk writes only .bib files; nothing was written.',
        shown(uri),
      );
}

export function unencodableMessage(name: string, encoding: string): string {
  return vscode.l10n.t(
    'The new entry has characters that {0} ({1}) cannot hold; nothing was written. Convert the file to UTF-8 to cite this paper there.',
    name,
    encoding,
  );
}

/** Why nothing is appended (or tidied), for the writer; the caller says what was not done. */
export function blockedMessage(name: string, blocked: AppendBlocker): string {
  const where = blocked.key
    ? vscode.l10n.t('entry {0} (line {1})', blocked.key, blocked.line)
    : vscode.l10n.t('line {0}', blocked.line);
  return blocked.reason === 'comment'
    ? vscode.l10n.t(
        '{0}: the @comment at line {1} is not closed, so Biber would read what follows as part of it. Close it (see Problems).',
        name,
        blocked.line,
      )
    : blocked.reason === 'quote'
      ? vscode.l10n.t(
          '{0}: a quoted value in {1} is not closed, so Biber would read what follows as part of it. Close it (see Problems).',
          name,
          where,
        )
      : vscode.l10n.t(
          '{0}: {1} is not closed, so BibTeX would read what follows as part of it. Close it (see Problems).',
          name,
          where,
        );
}

/** The default question before writing to a file outside the workspace or creating one: a modal dialog. */
export async function askToWrite(uri: vscode.Uri, why: WriteQuestion): Promise<boolean> {
  const write = vscode.l10n.t('Write to It');
  const detail = [
    why.link
      ? vscode.l10n.t('It is reached through a symbolic link, which may lead outside the workspace.')
      : why.outside
        ? vscode.l10n.t('It is outside the workspace folders.')
        : '',
    why.create ? vscode.l10n.t('It does not exist yet and will be created.') : '',
    why.fromWorkspaceSetting
      ? vscode.l10n.t("The path comes from this workspace's settings (researchDesk.citations.defaultBibliography).")
      : '',
    vscode.l10n.t('You are asked once per file in this session.'),
  ]
    .filter(Boolean)
    .join(' ');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('Add the new bibliography entries to {0}?', shown(uri)),
    { modal: true, detail },
    write,
  );
  return choice === write;
}
