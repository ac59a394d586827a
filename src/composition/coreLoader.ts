import { join } from 'node:path';
import type * as vscode from 'vscode';
import type { Core, CoreModule, CoreServices } from './contract';
import type * as Deferred from './deferred';

export type DeferredModule = typeof Deferred;

/**
 * Loads dist/core.js (the client and the features) on first use. Activation loads only
 * the entry bundle; the first command that needs the core pays for it once.
 */
export class CoreLoader implements vscode.Disposable {
  private core: Core | undefined;
  /** Milliseconds the first load took. */
  loadMs: number | undefined;
  /** The same, in its two parts: `require` of the bundle and `createCore` (the benchmark reports both). */
  loadSteps: { require: number; create: number } | undefined;

  constructor(
    private readonly services: CoreServices,
    private readonly bundleDir: string = __dirname,
  ) {}

  get loaded(): boolean {
    return this.core !== undefined;
  }

  get(): Core {
    if (!this.core) {
      const started = performance.now();
      // A computed path, so esbuild leaves this require to run time.
      const file = join(this.bundleDir, 'core.js');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(file) as CoreModule;
      const required = performance.now();
      this.core = mod.createCore(this.services);
      this.loadMs = performance.now() - started;
      this.loadSteps = { require: required - started, create: this.loadMs - (required - started) };
      this.services.log.debug(`Loaded the core bundle in ${this.loadMs.toFixed(1)} ms.`);
    }
    return this.core;
  }

  dispose(): void {
    this.core?.dispose();
    this.core = undefined;
  }
}

/**
 * Loads dist/deferred.js (what runs after activation: the views' rows, the cite providers, the demo-key hand-off…) on
 * first use, once.
 */
export class DeferredLoader {
  private module: DeferredModule | undefined;

  constructor(private readonly bundleDir: string = __dirname) {}

  get(): DeferredModule {
    // A computed path, so esbuild leaves this require to run time.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.module ??= require(join(this.bundleDir, 'deferred.js')) as DeferredModule;
    return this.module;
  }
}
