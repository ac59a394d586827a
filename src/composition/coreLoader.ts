import { join } from 'node:path';
import type * as vscode from 'vscode';
import type { Logger } from '../platform/logger';
import type { FirstList, FirstListModule } from '../citations/firstList';
import type { CiteCore, CiteModule, CiteServices } from './cite';
import { requireWithCodeCache } from './codeCache';
import type { Core, CoreModule, CoreServices } from './contract';
import type * as Deferred from './deferred';

export type DeferredModule = typeof Deferred;

/**
 * When a bundle loaded without its code cache saves one: after what its first use compiled (the first list and the
 * reading after it, the first command's work), at a moment the person is reading rather than waiting.
 */
export const SAVE_CODE_CACHE_MS = 3000;

export interface BundleLoadOptions {
  /** Where the bundle's V8 code cache is kept (codeCache.ts), asked when it loads; none: a plain require. */
  codeCacheDir?: () => string | undefined;
  /** Runs first: another bundle this one requires, loaded through its own loader (and so from its code cache). */
  before?: () => void;
}

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
  /** Whether the bundle's code came from its code cache. */
  fromCodeCache = false;
  /** Resolves once a code cache missing at the load is saved (tests wait for it). */
  codeCacheSaved: Promise<void> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly file: string,
    private readonly create: (mod: M) => T,
    private readonly log: Logger,
    private readonly bundleDir: string = __dirname,
    private readonly options: BundleLoadOptions = {},
  ) {}

  get loaded(): boolean {
    return this.built !== undefined;
  }

  get(): T {
    if (!this.built) {
      const started = performance.now();
      this.options.before?.();
      const cacheDir = this.options.codeCacheDir?.();
      const bundle = requireWithCodeCache(join(this.bundleDir, this.file), cacheDir);
      const required = performance.now();
      this.fromCodeCache = bundle.fromCache;
      if (!bundle.fromCache && cacheDir)
        this.codeCacheSaved = new Promise((resolve) => {
          this.saveTimer = setTimeout(
            () =>
              void bundle.save().then((failed) => {
                if (failed) this.log.debug(`Could not save the code cache of ${this.file}: ${failed}`);
                resolve();
              }),
            SAVE_CODE_CACHE_MS,
          );
        });
      this.built = this.create(bundle.exports as M);
      this.loadMs = performance.now() - started;
      this.loadSteps = { require: required - started, create: this.loadMs - (required - started) };
      this.log.debug(
        `Loaded ${this.file} in ${this.loadMs.toFixed(1)} ms${bundle.fromCache ? ' (from its code cache)' : ''}.`,
      );
    }
    return this.built;
  }

  dispose(): void {
    clearTimeout(this.saveTimer);
    this.built?.dispose();
    this.built = undefined;
  }
}

/** dist/core.js, built with the entry bundle's services. */
export const coreLoader = (
  services: CoreServices,
  bundleDir?: string,
  options?: BundleLoadOptions,
): BundleLoader<Core, CoreModule> =>
  new BundleLoader('core.js', (mod: CoreModule) => mod.createCore(services), services.log, bundleDir, options);

/** dist/cite.js, built with the entry bundle's services (the core takes the same instance). */
export const citeLoader = (
  services: CiteServices,
  bundleDir?: string,
  options?: BundleLoadOptions,
): BundleLoader<CiteCore, CiteModule> =>
  new BundleLoader('cite.js', (mod: CiteModule) => mod.createCiteCore(services), services.log, bundleDir, options);

/**
 * dist/firstList.js: the first `\cite{` list of a large .bib before dist/cite.js is loaded; `hasRecentPapers` says
 * whether the Research view shows papers (that list is the citation bundle's).
 */
export const firstListLoader = (
  log: Logger,
  hasRecentPapers: () => boolean,
  bundleDir?: string,
  options?: BundleLoadOptions,
): BundleLoader<FirstList, FirstListModule> =>
  new BundleLoader(
    'firstList.js',
    (mod: FirstListModule) => mod.createFirstList(hasRecentPapers),
    log,
    bundleDir,
    options,
  );

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
