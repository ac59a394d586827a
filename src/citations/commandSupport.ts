/**
 * What the citation command files (citationCommands.ts, quickPick.ts, tidyCommand.ts) share: the result every command
 * returns (tests, keybindings), how a command fails (a notification, and a result saying so), and which documents
 * are written in. Apart so that the command files need not import each other.
 */
import * as vscode from 'vscode';
import { showError, showWarning } from '../platform/notify';

export interface CitationCommandResult {
  done: boolean;
  /** Keys cited (Insert Citation). */
  keys?: string[];
  /** The bibliography written or tidied. */
  bib?: vscode.Uri;
  /** Entries added (Insert Citation). */
  added?: number;
  /** What was copied (Copy BibTeX / Copy Reference). */
  value?: string;
  /** Tidy: keys removed as DOI duplicates, and keys no document cites. */
  removed?: { key: string; keptKey: string; doi: string }[];
  uncited?: string[];
  message?: string;
}

/** A command that did not run: the writer is told why (a warning, or an error), and the result says so. */
export function failed(message: string, level: 'warning' | 'error' = 'warning'): CitationCommandResult {
  void (level === 'error' ? showError(message) : showWarning(message));
  return { done: false, message };
}

/**
 * A document one writes in: a file of any file system (a read-only one is refused later with its own message) or
 * an untitled one; not the Output panel, a virtual document (an abstract), a diff's git side.
 */
export function isWritingDocument(d: vscode.TextDocument): boolean {
  const scheme = d.uri.scheme;
  if (scheme === 'file' || scheme === 'untitled' || scheme === 'vscode-remote' || scheme === 'vscode-vfs') return true;
  if (scheme === 'git' || scheme === 'output' || scheme.startsWith('vscode-')) return false;
  return vscode.workspace.fs.isWritableFileSystem(scheme) !== undefined;
}
