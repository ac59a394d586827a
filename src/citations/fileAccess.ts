/**
 * Reading a file's type, size and bytes for citing: local files (`file:`) through Node, everything else through
 * `vscode.workspace.fs`. In VS Code's server and remote setups each `workspace.fs` call is a round trip through the
 * workbench (4 ms or more, and it waits behind whatever the extension host is doing), and one Insert Citation asks
 * about several paths (the bibliography's folders for links, the file, its bytes before the append): measured in a
 * real VS Code on a 10,000-entry file, those round trips were about 70 of its 180 ms. An append to a local file
 * writes only the new bytes (`workspace.fs` has no append: it would write the whole file again).
 */
import { promises as fsp, type Stats } from 'node:fs';
import * as vscode from 'vscode';

const kind = (s: Stats): vscode.FileType =>
  s.isFile() ? vscode.FileType.File : s.isDirectory() ? vscode.FileType.Directory : vscode.FileType.Unknown;

/**
 * `workspace.fs.stat(uri)` (the type of what a link leads to, with `SymbolicLink` added for a link), or undefined when
 * there is nothing there.
 */
export async function statUri(uri: vscode.Uri): Promise<vscode.FileStat | undefined> {
  if (uri.scheme !== 'file') return Promise.resolve(vscode.workspace.fs.stat(uri)).catch(() => undefined);
  try {
    const own = await fsp.lstat(uri.fsPath);
    if (!own.isSymbolicLink()) return { type: kind(own), size: own.size, ctime: own.ctimeMs, mtime: own.mtimeMs };
    const target = await fsp.stat(uri.fsPath).catch(() => undefined);
    return {
      type: (target ? kind(target) : vscode.FileType.Unknown) | vscode.FileType.SymbolicLink,
      size: target?.size ?? 0,
      ctime: target?.ctimeMs ?? own.ctimeMs,
      mtime: target?.mtimeMs ?? own.mtimeMs,
    };
  } catch {
    return undefined;
  }
}

/** `workspace.fs.readFile(uri)`; throws as it does when the file cannot be read. */
export async function readUri(uri: vscode.Uri): Promise<Uint8Array> {
  if (uri.scheme !== 'file') return vscode.workspace.fs.readFile(uri);
  const buffer = await fsp.readFile(uri.fsPath);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Writes `after`, which is `before` (the file's bytes, checked unchanged just before) with new bytes added: a local
 * file gets only the new bytes, appended (a failure part-way leaves every earlier byte as it was); elsewhere, or a
 * file that did not exist, the whole file through `workspace.fs`, which has no append.
 */
export async function appendUri(uri: vscode.Uri, before: Uint8Array | undefined, after: Uint8Array): Promise<void> {
  if (uri.scheme === 'file' && before && before.length > 0) {
    await fsp.appendFile(uri.fsPath, after.subarray(before.length));
    return;
  }
  await vscode.workspace.fs.writeFile(uri, after);
}
