/** What VS Code's `Disposable` is to this class (structurally the same, so no `vscode` import is needed). */
export interface DisposableLike {
  dispose(): unknown;
}

/**
 * Base for every long-lived object: it registers what it creates and disposes it in reverse
 * order. Pure, so both bundles can use it.
 */
export abstract class Disposable implements DisposableLike {
  private readonly disposables: DisposableLike[] = [];
  private disposed = false;

  protected register<T extends DisposableLike>(d: T): T {
    if (this.disposed) {
      d.dispose();
    } else {
      this.disposables.push(d);
    }
    return d;
  }

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch {
        // One failing dispose must not keep the others alive.
      }
    }
  }
}
