import * as vscode from 'vscode';
import { ContextKeys } from '../platform/ids';
import { Disposable } from '../shared/disposable';
import type { KeyStore } from './keyStore';

/**
 * Keeps the `researchDesk.hasKey` context key (it drives the Research view's welcome
 * content) in step with the key store, and sets `researchDesk.keyKnown` once it has been
 * read (a reloaded window reads its key from secret storage, which takes a while in VS Code
 * for the web). Refreshes are serialised so a slow read can't overwrite a newer answer.
 */
export class HasKeyContext extends Disposable {
  private current: boolean | undefined;
  private sequence = 0;
  private pending: Promise<boolean> = Promise.resolve(false);
  private readonly changed = this.register(new vscode.EventEmitter<boolean>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly keys: KeyStore) {
    super();
    this.register(keys.onDidChange(() => void this.refresh()));
  }

  /** The last value written to the context key (undefined before the first refresh). */
  get value(): boolean | undefined {
    return this.current;
  }

  refresh(): Promise<boolean> {
    const ticket = ++this.sequence;
    this.pending = this.pending
      .catch(() => false)
      .then(async () => {
        const has = await this.keys.has().catch(() => false);
        if (ticket !== this.sequence) return has; // a newer refresh will write
        await vscode.commands.executeCommand('setContext', ContextKeys.hasKey, has);
        // Set after hasKey: set first, a window with a key would offer Set API Key for a moment.
        if (this.current === undefined) await vscode.commands.executeCommand('setContext', ContextKeys.keyKnown, true);
        if (this.current !== has) {
          this.current = has;
          this.changed.fire(has);
        }
        return has;
      });
    return this.pending;
  }
}
