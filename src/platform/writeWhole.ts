import { randomBytes } from 'crypto';
import * as vscode from 'vscode';

/**
 * Writes `text` to `uri` whole: to a temporary sibling first, then renamed over the target, so a failure midway leaves
 * the old file (or none), never half a file (exported answers and papers).
 */
export async function writeWhole(uri: vscode.Uri, text: string): Promise<void> {
  const tmp = uri.with({ path: `${uri.path}.${randomBytes(4).toString('hex')}.tmp` });
  try {
    await vscode.workspace.fs.writeFile(tmp, new TextEncoder().encode(text));
    await vscode.workspace.fs.rename(tmp, uri, { overwrite: true });
  } catch (err) {
    await Promise.resolve(vscode.workspace.fs.delete(tmp)).catch(() => undefined);
    throw err;
  }
}
