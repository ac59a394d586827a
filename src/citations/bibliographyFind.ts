/**
 * Where a document's bibliographies are: the ones it declares (LaTeX \bibliography/\addbibresource, YAML front matter,
 * Typst #bibliography), resolved next to the document (LaTeX also at the workspace folder's root when not found next
 * to the document, as latexmk run from the root would); for a LaTeX part (`% !TEX root`, subfiles), its main file's;
 * else `bibliography:` of the nearest `_quarto.yml` between the document's folder and its workspace folder (Pandoc
 * flavours); else the file the writer chose for it this session; else the `researchDesk.citations.defaultBibliography`
 * setting relative to the workspace folder when that file exists. Only BibTeX files (.bib) count. The files read on
 * the way (`_quarto.yml`, a main file) are read only when regular and of sensible size. Apart from bibliography.ts,
 * which reads, caches and writes what is found here.
 */
import * as vscode from 'vscode';
import { decodeLossy } from '../bib/bibBytes';
import { latexBibliographies, locateBibliographies, texRoot } from '../bib/locate';
import { flavourOf } from '../bib/syntax';
import { citationSettings } from '../platform/settings';
import { readUri, statUri } from './fileAccess';
import type { ResolvedBibliography } from './types';

/** Larger `_quarto.yml` or LaTeX main files are not read to find a bibliography. */
const MAX_LOCATOR_BYTES = 4 * 1024 * 1024;
export const isBib = (path: string): boolean => /\.(bib|bibtex)$/iu.test(path);
const isAbsolute = (p: string): boolean => /^(?:[A-Za-z]:[\\/]|[\\/])/u.test(p);

/**
 * The bibliographies the document uses, in that order of precedence (see above); `chosenFor` gives the file the
 * writer chose for it, if any. No prompt.
 */
export async function findBibliographies(
  document: vscode.TextDocument,
  chosenFor: () => vscode.Uri | undefined,
): Promise<ResolvedBibliography[]> {
  const flavour = flavourOf(document.languageId, document.fileName);
  if (flavour === 'plain') return [];
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  const quarto = flavour === 'pandoc' ? await quartoYml(document, folder) : undefined;
  const located = locateBibliographies(document.getText(), flavour, quarto?.text);
  const out: ResolvedBibliography[] = [];
  const seen = new Set<string>();
  const add = (uri: vscode.Uri, source: ResolvedBibliography['source']): void => {
    if (!isBib(uri.path) || seen.has(uri.toString())) return;
    seen.add(uri.toString());
    out.push({ uri, source });
  };
  const declared = async (paths: readonly string[], from: vscode.Uri | undefined): Promise<void> => {
    const dir = from ? vscode.Uri.joinPath(from, '..') : undefined;
    for (const p of paths) {
      if (!isBib(p)) continue;
      if (isAbsolute(p)) {
        add(absoluteUri(from ?? document.uri, p), 'declared');
        continue;
      }
      const rel = p.replace(/\\/gu, '/');
      const nextToDoc = dir ? vscode.Uri.joinPath(dir, rel) : undefined;
      if (flavour === 'latex' && folder && (!nextToDoc || !(await exists(nextToDoc)))) {
        const atRoot = vscode.Uri.joinPath(folder.uri, rel);
        if (!nextToDoc || (await exists(atRoot))) {
          add(atRoot, 'declared');
          continue;
        }
      }
      if (nextToDoc) add(nextToDoc, 'declared');
    }
  };
  await declared(located.fromDocument, document.isUntitled ? undefined : document.uri);
  // A LaTeX part of a larger document (`% !TEX root = main.tex`, `\documentclass[main.tex]{subfiles}`): the
  // main file's bibliographies, relative to the main file (where LaTeX runs).
  if (!out.length && flavour === 'latex' && !document.isUntitled) {
    const root = texRoot(document.getText());
    const rootUri = root
      ? isAbsolute(root)
        ? absoluteUri(document.uri, root)
        : vscode.Uri.joinPath(document.uri, '..', root.replace(/\\/gu, '/'))
      : undefined;
    const rootText = rootUri && rootUri.toString() !== document.uri.toString() ? await readText(rootUri) : undefined;
    if (rootUri && rootText !== undefined) await declared(latexBibliographies(rootText), rootUri);
  }
  if (!out.length && quarto) {
    const dir = vscode.Uri.joinPath(quarto.uri, '..');
    for (const p of located.fromProject)
      if (isBib(p))
        add(isAbsolute(p) ? absoluteUri(quarto.uri, p) : vscode.Uri.joinPath(dir, p.replace(/\\/gu, '/')), 'quarto');
  }
  if (!out.length) {
    const chosen = chosenFor();
    if (chosen) add(chosen, 'chosen');
  }
  if (!out.length) {
    const def = defaultBibliography(document, folder);
    if (def && (await exists(def))) add(def, 'default');
  }
  return out;
}

/** The default bibliography setting's file for the document (absent: untitled, or outside every folder). */
export function defaultBibliography(
  document: vscode.TextDocument,
  folder: vscode.WorkspaceFolder | undefined,
): vscode.Uri | undefined {
  if (document.isUntitled || !folder) return undefined;
  const setting = citationSettings(document.uri).defaultBibliography;
  if (!setting) return undefined;
  return isAbsolute(setting)
    ? absoluteUri(folder.uri, setting)
    : vscode.Uri.joinPath(folder.uri, setting.replace(/\\/gu, '/'));
}

function absoluteUri(like: vscode.Uri, p: string): vscode.Uri {
  return like.scheme === 'file' ? vscode.Uri.file(p) : like.with({ path: p.replace(/\\/gu, '/') });
}

/** The nearest `_quarto.yml` from the document's folder up to its workspace folder. */
async function quartoYml(
  document: vscode.TextDocument,
  folder: vscode.WorkspaceFolder | undefined,
): Promise<{ uri: vscode.Uri; text: string } | undefined> {
  if (document.isUntitled || !folder) return undefined;
  const root = folder.uri.toString().replace(/\/+$/u, '');
  let dir = vscode.Uri.joinPath(document.uri, '..');
  for (let i = 0; i < 32; i++) {
    const uri = vscode.Uri.joinPath(dir, '_quarto.yml');
    const text = await readText(uri);
    if (text !== undefined) return { uri, text };
    if (dir.toString().replace(/\/+$/u, '') === root) break;
    const up = vscode.Uri.joinPath(dir, '..');
    if (up.toString() === dir.toString() || !up.toString().startsWith(root)) break;
    dir = up;
  }
  return undefined;
}

/**
 * A file that may name bibliographies (`_quarto.yml`, a LaTeX main file): the open buffer, else the file when it is
 * a regular file of sensible size (a path a document names may be a device that never ends, or huge).
 */
async function readText(uri: vscode.Uri): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  const stat = await regularFile(uri);
  if (!stat || stat.size > MAX_LOCATOR_BYTES) return undefined;
  try {
    return decodeLossy(await readUri(uri));
  } catch {
    return undefined;
  }
}

/** The file's stat when it is a regular file (following links), else undefined. */
export async function regularFile(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  const s = await statUri(uri);
  return s && s.type & vscode.FileType.File ? s : undefined;
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === uri.toString())) return true;
  return (await regularFile(uri)) !== undefined;
}

/** The default way the writer picks a bibliography: a save dialog filtered to .bib, next to the document. */
export async function bibliographyDialog(document: vscode.TextDocument): Promise<vscode.Uri | undefined> {
  const folder = vscode.workspace.getWorkspaceFolder(document.uri) ?? vscode.workspace.workspaceFolders?.[0];
  const base = document.isUntitled ? folder?.uri : vscode.Uri.joinPath(document.uri, '..');
  return vscode.window.showSaveDialog({
    title: vscode.l10n.t('Bibliography for the citation (a BibTeX file; created if new)'),
    saveLabel: vscode.l10n.t('Use as Bibliography'),
    filters: { [vscode.l10n.t('BibTeX')]: ['bib'] },
    defaultUri: base ? vscode.Uri.joinPath(base, 'references.bib') : undefined,
  });
}
