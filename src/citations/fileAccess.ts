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
import { sameBytes } from '../bib/bibBytes';

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

/** The first `size` bytes of a local file (fewer when it is shorter); undefined for other schemes or when unreadable. */
export async function readHead(uri: vscode.Uri, size: number): Promise<Uint8Array | undefined> {
  if (uri.scheme !== 'file') return undefined;
  try {
    const handle = await fsp.open(uri.fsPath, 'r');
    try {
      const buffer = Buffer.allocUnsafe(size);
      let at = 0;
      for (let n = -1; n !== 0 && at < size; at += n) n = (await handle.read(buffer, at, size - at, at)).bytesRead;
      return buffer.subarray(0, at);
    } finally {
      await handle.close();
    }
  } catch {
    return undefined;
  }
}

/** How many bytes `pieces` hold together. */
export const byteLength = (pieces: readonly Uint8Array[]): number => pieces.reduce((n, p) => n + p.length, 0);

/** The bytes of `pieces`, one after another, in one array (a single piece is returned as it is). */
export function joinBytes(pieces: readonly Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(byteLength(pieces));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Read in steps of this size when a file is compared with bytes we hold. */
const COMPARE_STEP = 1 << 20;

/**
 * Whether the file holds exactly `pieces` (one after another), every byte compared. A local file is read a step at a
 * time into one small buffer: reading a 16 MB file whole before each citation made garbage the size of the file
 * that the extension host then paused to collect.
 */
export async function holdsBytes(uri: vscode.Uri, pieces: readonly Uint8Array[]): Promise<boolean> {
  const size = byteLength(pieces);
  if (uri.scheme !== 'file') return sameBytes(await readUri(uri), joinBytes(pieces));
  const handle = await fsp.open(uri.fsPath, 'r');
  try {
    if ((await handle.stat()).size !== size) return false;
    const buffer = Buffer.allocUnsafe(Math.min(COMPARE_STEP, Math.max(size, 1)));
    let piece = 0;
    let inPiece = 0;
    let at = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) return at === size;
      if (at + bytesRead > size) return false;
      // The bytes read against the pieces they fall on.
      let done = 0;
      while (done < bytesRead) {
        const p = pieces[piece]!;
        const n = Math.min(bytesRead - done, p.length - inPiece);
        if (buffer.compare(p, inPiece, inPiece + n, done, done + n) !== 0) return false;
        done += n;
        inPiece += n;
        if (inPiece === p.length) {
          piece++;
          inPiece = 0;
        }
      }
      at += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Writes `tail` after `before` (the file's bytes, checked unchanged just before): a local file gets only the new bytes,
 * appended (a failure part-way leaves every earlier byte as it was); elsewhere, or a file that did not exist, the whole
 * file through `workspace.fs`, which has no append.
 */
export async function appendUri(
  uri: vscode.Uri,
  before: readonly Uint8Array[] | undefined,
  tail: Uint8Array,
): Promise<void> {
  if (uri.scheme === 'file' && before && before.some((p) => p.length > 0)) {
    await fsp.appendFile(uri.fsPath, tail);
    return;
  }
  await vscode.workspace.fs.writeFile(uri, joinBytes([...(before ?? []), tail]));
}
