/**
 * The entry bundle's side of cite-key completion, hover and links: three providers registered at
 * activation that cost nothing until a citation is near. Each asks src/shared/citeTrigger.ts (one regular expression
 * over a little text) whether there could be anything to say; only then is dist/cite.js (the citation bundle, a
 * quarter of the core's size) loaded and the request handed to it. Once it is loaded (by an earlier citation, or by
 * the core, which builds on it), requests go straight to it.
 * No src/bib import here (esbuild.mjs refuses it in the entry bundle).
 */
import * as vscode from 'vscode';
import {
  CITE_WINDOW,
  cheapFlavour,
  citationsPlausible,
  mayBeOnCiteKey,
  mayCompleteCitation,
  mayCite,
  mayHaveCitations,
} from '../shared/citeTrigger';
import { AFTER_LIST_MS } from '../shared/slices';
/**
 * What the citation bundle does for cite keys once loaded: the providers below call it only when a cheap check saw a citation
 * near the cursor. It never throws (a failure is logged, nothing is shown).
 */
export interface CiteAssistant {
  provideCompletion(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
    context: vscode.CompletionContext,
  ): Promise<vscode.CompletionList | undefined>;
  resolveCompletion(
    item: vscode.CompletionItem,
    token: vscode.CancellationToken,
  ): vscode.CompletionItem | Promise<vscode.CompletionItem>;
  provideHover(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.Hover | undefined>;
  provideDocumentLinks(
    document: vscode.TextDocument,
    token: vscode.CancellationToken,
  ): Promise<vscode.DocumentLink[] | undefined>;
  /** Reads the document's bibliographies whole and indexes them (after a first list the first-list bundle gave). */
  prepareCompletion(document: vscode.TextDocument): void;
}

/**
 * The first list's bundle (src/citations/firstList.ts): right after `\cite{`, before the citation bundle is loaded, the
 * first entries of a large .bib read from its head; undefined when the list is not of that kind.
 */
export interface FirstListAssistant {
  provide(
    document: vscode.TextDocument,
    position: vscode.Position,
    token: vscode.CancellationToken,
  ): Promise<vscode.CompletionList | undefined>;
  resolve(item: vscode.CompletionItem): vscode.CompletionItem;
  /** Reads the head of the document's large .bib ahead of its first list. */
  warm(document: vscode.TextDocument): Promise<void>;
}

/** A bundle's service, loaded on demand. */
export interface Loadable<T> {
  readonly loaded: boolean;
  get(): T;
}

/** What the adapter needs of the citation bundle's loader: its service, loaded on demand. */
export type CiteAccess = Loadable<CiteAssistant>;

/**
 * Languages whose documents get cite-key assistance; a pattern covers .qmd/.Rmd/.typ without their language extension.
 */
export const CITE_LANGUAGES = ['latex', 'tex', 'markdown', 'quarto', 'rmd', 'rmarkdown', 'typst'] as const;
const CITE_PATTERN = '**/*.{qmd,Qmd,QMD,rmd,Rmd,RMD,typ}';
const SCHEMES = ['file', 'untitled'] as const;

export const CITE_SELECTOR: vscode.DocumentSelector = [
  ...SCHEMES.flatMap((scheme) => CITE_LANGUAGES.map((language) => ({ language, scheme }))),
  ...SCHEMES.map((scheme) => ({ scheme, pattern: CITE_PATTERN })),
];

/** Completion opens on these (Typst's `#cite(<`; `@` after `[`, `;` or a space; LaTeX's `{` and `,`). */
export const CITE_TRIGGER_CHARACTERS = ['{', ',', '@', '<'] as const;

/**
 * Text of the document from `lines` lines before `position` up to it, at most `CITE_WINDOW` characters: only that
 * much is read (a line can be megabytes long, and this runs on every keystroke).
 */
function textBefore(document: vscode.TextDocument, position: vscode.Position, lines: number): string {
  const end = document.offsetAt(position);
  const start = Math.max(
    document.offsetAt(new vscode.Position(Math.max(0, position.line - lines), 0)),
    end - CITE_WINDOW,
  );
  return document.getText(new vscode.Range(document.positionAt(start), position));
}

/** The rest of the line after `position`, at most `CITE_WINDOW` characters. */
function textAfter(document: vscode.TextDocument, position: vscode.Position): string {
  return document.getText(new vscode.Range(position, position.translate(0, CITE_WINDOW)));
}

/** The service of a bundle, loaded if need be; undefined when it fails to load (logged). */
function loadOrWarn<T>(bundle: Loadable<T>, log: { warn(message: string): void }): T | undefined {
  try {
    return bundle.get();
  } catch (err) {
    log.warn(`Cite assistance unavailable: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

export function registerCiteProviders(
  cite: CiteAccess,
  log: { warn(message: string): void },
  first?: Loadable<FirstListAssistant>,
): vscode.Disposable {
  const load = <T>(bundle: Loadable<T>): T | undefined => loadOrWarn(bundle, log);
  /** The citation bundle's service when loaded or when `needed()` says a citation is near. */
  const citeIf = (needed: () => boolean): CiteAssistant | undefined =>
    cite.loaded || needed() ? load(cite) : undefined;
  /**
   * The first list from the first-list bundle while the citation bundle is not loaded, which loads once the list has
   * had time to show and reads the file whole; else (not a list of that kind) the citation bundle's list.
   */
  const firstThenCite = async (
    firstList: FirstListAssistant,
    ...args: Parameters<CiteAssistant['provideCompletion']>
  ): Promise<vscode.CompletionList | undefined> => {
    const [document, position, token] = args;
    const list = await firstList.provide(document, position, token).catch((err: unknown) => {
      log.warn(`The first list failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    });
    if (!list) return load(cite)?.provideCompletion(...args);
    setTimeout(() => load(cite)?.prepareCompletion(document), AFTER_LIST_MS);
    return list;
  };
  const flavour = (d: vscode.TextDocument): ReturnType<typeof cheapFlavour> => cheapFlavour(d.languageId, d.fileName);

  const completion: vscode.CompletionItemProvider = {
    provideCompletionItems(document, position, token, context) {
      const f = flavour(document);
      if (!f) return undefined;
      const near = (): boolean => {
        const before = textBefore(document, position, 12);
        return (
          mayCompleteCitation(before, f) && citationsPlausible(before, f, document.fileName, () => document.getText())
        );
      };
      if (!cite.loaded) {
        if (!near()) return undefined;
        const firstList = first && load(first);
        if (firstList) return firstThenCite(firstList, document, position, token, context);
      }
      return load(cite)?.provideCompletion(document, position, token, context);
    },
    resolveCompletionItem(item, token) {
      // Items come from the citation bundle or, before it is loaded, from the first-list bundle.
      if (cite.loaded) return cite.get().resolveCompletion(item, token);
      return first?.loaded ? first.get().resolve(item) : item;
    },
  };
  const hover: vscode.HoverProvider = {
    provideHover(document, position, token) {
      const f = flavour(document);
      if (!f) return undefined;
      const c = citeIf(() => {
        const before = textBefore(document, position, 12);
        const after = textAfter(document, position);
        return (
          mayBeOnCiteKey(before, after, f) && citationsPlausible(before, f, document.fileName, () => document.getText())
        );
      });
      return c?.provideHover(document, position, token);
    },
  };
  const links: vscode.DocumentLinkProvider = {
    provideDocumentLinks(document, token) {
      const f = flavour(document);
      if (!f) return undefined;
      const c = citeIf(() => mayHaveCitations(document.getText(), f));
      return c?.provideDocumentLinks(document, token);
    },
  };
  return vscode.Disposable.from(
    vscode.languages.registerCompletionItemProvider(CITE_SELECTOR, completion, ...CITE_TRIGGER_CHARACTERS),
    vscode.languages.registerHoverProvider(CITE_SELECTOR, hover),
    vscode.languages.registerDocumentLinkProvider(CITE_SELECTOR, links),
  );
}

/**
 * How long the editor of a document that cites stays active before the first list is made ready: what a writer who
 * switches through tabs passes by costs nothing.
 */
export const WARM_DELAY_MS = 500;

/**
 * A writer who opens a document that cites (or declares a bibliography) tends to cite in it: once its editor has been
 * active for `delayMs`, the first list's bundle loads and reads the head of its large .bib, so that the first `\cite{`
 * waits for neither (measured: the bundle's load was 4–13 ms of the first list, the read and parse of the head a few
 * more). Nothing for other documents, nor once the citation bundle is loaded (it reads the whole file itself).
 */
export function warmFirstList(
  first: Loadable<FirstListAssistant>,
  cite: { readonly loaded: boolean },
  log: { warn(message: string): void },
  delayMs = WARM_DELAY_MS,
): vscode.Disposable {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = (editor: vscode.TextEditor | undefined): void => {
    clearTimeout(timer);
    const document = editor?.document;
    const f = document && cheapFlavour(document.languageId, document.fileName);
    if (!document || !f || cite.loaded) return;
    timer = setTimeout(() => {
      if (cite.loaded || document.isClosed || vscode.window.activeTextEditor?.document !== document) return;
      if (!mayCite(document.getText(), f)) return;
      loadOrWarn(first, log)
        ?.warm(document)
        .catch((err: unknown) => {
          log.warn(`Reading ahead for the first list failed: ${err instanceof Error ? err.message : String(err)}`);
        });
    }, delayMs);
  };
  schedule(vscode.window.activeTextEditor);
  const watching = vscode.window.onDidChangeActiveTextEditor(schedule);
  return new vscode.Disposable(() => {
    clearTimeout(timer);
    watching.dispose();
  });
}
