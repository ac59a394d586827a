import { join } from 'node:path';
import type * as vscode from 'vscode';
import type { Logger } from '../platform/logger';
import type { CiteCore, CiteModule, CiteServices } from './cite';
import type { Core, CoreModule, CoreServices } from './contract';
import type * as Deferred from './deferred';

export type DeferredModule = typeof Deferred;

/**
 * Loads a bundle on first use and builds its service: dist/cite.js (cite-key completion, hover and links) on the first
 * citation request, dist/core.js (the client and the features) on the first command that needs it. Activation loads
 * only the entry bundle.
 */
export class BundleLoader<T extends vscode.Disposable, M> implements vscode.Disposable {
  private built: T | undefined;
  /** Milliseconds the first load took. */
  loadMs: number | undefined;
  /** The same, in its two parts: `require` of the bundle and building its service (the benchmarks report both). */
  loadSteps: { require: number; create: number } | undefined;

  constructor(
    private readonly file: string,
    private readonly create: (mod: M) => T,
    private readonly log: Logger,
    private readonly bundleDir: string = __dirname,
  ) {}

  get loaded(): boolean {
    return this.built !== undefined;
  }

  get(): T {
    if (!this.built) {
      const started = performance.now();
      // A computed path, so esbuild leaves this require to run time.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(join(this.bundleDir, this.file)) as M;
      const required = performance.now();
      this.built = this.create(mod);
      this.loadMs = performance.now() - started;
      this.loadSteps = { require: required - started, create: this.loadMs - (required - started) };
      this.log.debug(`Loaded ${this.file} in ${this.loadMs.toFixed(1)} ms.`);
    }
    return this.built;
  }

  dispose(): void {
    this.built?.dispose();
    this.built = undefined;
  }
}

/** dist/core.js, built with the entry bundle's services. */
export const coreLoader = (services: CoreServices, bundleDir?: string): BundleLoader<Core, CoreModule> =>
  new BundleLoader('core.js', (mod: CoreModule) => mod.createCore(services), services.log, bundleDir);

/** dist/cite.js, built with the entry bundle's services (the core takes the same instance). */
export const citeLoader = (services: CiteServices, bundleDir?: string): BundleLoader<CiteCore, CiteModule> =>
  new BundleLoader('cite.js', (mod: CiteModule) => mod.createCiteCore(services), services.log, bundleDir);

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
