// Builds the bundles:
//   dist/extension.js  entry loaded at activation: ids, settings, key store, views, thin command
//                      handlers. Must stay tiny: no client, undici, zod or markdown-it (checked below).
//   dist/deferred.js   what the entry runs after activation (the views' rows, the cite providers, the demo key…).
//   dist/firstList.js  the first `\cite{` list of a large .bib before dist/cite.js is loaded (its modules are shared
//                      with dist/cite.js as dist/cite.js's are with dist/core.js).
//   dist/cite.js       cite-key completion, hover and links, `require`d on the first citation request (or by the core).
//   dist/core.js       the API client and the features, `require`d on the first command needing them; it takes
//                      every module dist/cite.js has from that bundle at run time, so each exists once.
//   dist/bibtex.js     the BibTeX library, loaded by the core on the first citation feature.
//   dist/undici.js     undici, loaded by the core when it makes its first client.
//   dist/markdown.js   markdown-it, loaded by the core when it first renders Markdown.
//   dist/webview.js    the answer webview script (browser).
//   dist/table.js      the evidence table's webview script (browser).
//   out/test/extension/index.js  (with --tests) the extension-host Mocha suite; mocha and vscode external.
// `--production` minifies without source maps; `--watch` rebuilds.
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, sep } from 'node:path';
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';
import { escapeNonAscii } from './scripts/asciiOnly.mjs';
import { thirdPartyNotices } from './scripts/licenses.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const tests = process.argv.includes('--tests');

// Bundles are written ASCII (scripts/asciiOnly.mjs says why). Column numbers of the development build's source maps
// shift on the few lines that had such a character.
const asciiOnly = {
  name: 'ascii-only',
  setup(build) {
    build.onEnd((result) => {
      if (build.initialOptions.write === false) return;
      for (const file of Object.keys(result.metafile?.outputs ?? {})) {
        if (!file.endsWith('.js')) continue;
        const text = readFileSync(file, 'utf8');
        if (/[^\0-\x7f]/.test(text)) writeFileSync(file, escapeNonAscii(text));
      }
    });
  },
};

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  minify: production,
  sourcemap: production ? false : 'linked',
  logLevel: 'info',
  legalComments: 'none',
  plugins: [asciiOnly],
};

// `import * as vscode from 'vscode'` bundles as `__toESM(require('vscode'))` in every file that has it: a copy of the
// API object's hundreds of members as getters, per file, at load (measured: about 4 ms of the entry bundle's load in
// plain Node, more than its compilation). TypeScript's `import vscode = require('vscode')` is the same object without
// the copy; the sources keep the usual import, and the bundles get this form.
const vscodeRequire = {
  name: 'vscode-require',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(
        /^import \* as (\w+) from 'vscode';$/gm,
        "import $1 = require('vscode');",
      ),
      loader: 'ts',
    }));
  },
};

/** @type {import('esbuild').BuildOptions} */
const node = {
  ...common,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  plugins: [asciiOnly, vscodeRequire],
};

// The BibTeX reader (@retorquere/bibtex-parser with its unicode2latex tables, about 560 KB minified: more than the
// rest of the core) is its own bundle, dist/bibtex.js, loaded by src/bib/library.ts's `import()` the first time a
// citation feature needs it: a search or a thread does not pay for it. In the core bundle the package resolves to
// that file (external); the file exports what library.ts uses (`parse`).
const BIBTEX_PACKAGES = /^(?:@retorquere\/bibtex-parser|unicode2latex)$/;
// undici (about 520 KB minified, half the core) is its own bundle too, dist/undici.js: src/api/transport.ts requires it
// when the first client is made, so a command that sends nothing (Search Papers' input, the citation features) loads
// the core without it.
/** Resolves `filter` in the core to a CommonJS shim that `require`s `./<file>` at run time. */
const lazyBundle = (name, filter, file, contents = `module.exports = require('./${file}');`) => ({
  name,
  setup(build) {
    // A plain require, not an ESM import(), so the extension host's module loader handles it like core.js itself.
    build.onResolve({ filter }, () => ({ path: name, namespace: `${name}-shim` }));
    build.onLoad({ filter: /.*/, namespace: `${name}-shim` }, () => ({ contents, loader: 'js' }));
    build.onResolve({ filter: new RegExp(`^\\./${file.replace('.', '\\.')}$`) }, () => ({
      path: `./${file}`,
      external: true,
    }));
  },
});
const bibtexExternal = lazyBundle('bibtex-library', BIBTEX_PACKAGES, 'bibtex.js');
const undiciExternal = lazyBundle('undici-library', /^undici$/, 'undici.js');
// markdown-it (its entity tables cost tens of milliseconds at load) is dist/markdown.js, required when the first
// Markdown is rendered (an answer, a chat reply, markup for a document): the core's `markdown-it` is a constructor that
// requires it then. Every use in src/ is `new MarkdownIt(…)`; a static member would need the real module here.
const markdownExternal = lazyBundle(
  'markdown-library',
  /^markdown-it$/,
  'markdown.js',
  "module.exports = function MarkdownIt(...args) { return new (require('./markdown.js'))(...args); };",
);

/** The modules under src/ a first build of `entry` bundles. */
async function sourceModules(entry, plugins) {
  const { metafile } = await esbuild.build({
    ...node,
    entryPoints: [entry],
    write: false,
    outdir: 'dist',
    metafile: true,
    logLevel: 'silent',
    plugins,
  });
  return Object.keys(metafile.inputs)
    .filter((i) => i.startsWith('src/'))
    .sort();
}

/** A bundle's entry that exports `exports` and every one of `modules` by path (`modules`), for sharedFrom. */
const sharingIndex = (exports, modules) =>
  [
    exports,
    ...modules.map((m, i) => `import * as m${i} from './${m}';`),
    `export const modules = { ${modules.map((m, i) => `${JSON.stringify(m)}: m${i}`).join(', ')} };`,
  ].join('\n');

/**
 * Imports of `modules` (paths under src/) become requires of the bundle `file` that exports them (sharingIndex): a
 * module two bundles share is one instance, so caches, module-level state and error classes (`instanceof`) are the
 * same for both.
 */
const sharedFrom = (file, modules) => {
  const namespace = `shared-from-${file}`;
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter: /^\./ }, async (args) => {
        if (args.namespace.startsWith('shared-from-') || args.pluginData?.[namespace]) return undefined;
        const r = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { ...args.pluginData, [namespace]: true },
        });
        if (r.errors.length > 0 || !r.path) return undefined;
        const module = relative(process.cwd(), r.path).split(sep).join('/');
        return modules.has(module) ? { path: module, namespace } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: `module.exports = require('./${file}').modules[${JSON.stringify(args.path)}];`,
        loader: 'js',
      }));
      build.onResolve({ filter: new RegExp(`^\\./${file.replace('.', '\\.')}$`) }, () => ({
        path: `./${file}`,
        external: true,
      }));
    },
  };
};

// The citation bundle: what cite-key completion, hover and links need, about a quarter of the core, so that the
// first list does not wait for the whole core to load. The core takes its modules from it (sharedFrom).
// The first list's bundle: what the first `\cite{` list of a large .bib needs before the citation bundle is loaded
// (src/citations/firstList.ts), a third of it; the citation bundle takes its modules from it in turn.
const CITE_ENTRY = 'src/composition/cite.ts';
const FIRST_ENTRY = 'src/citations/firstList.ts';
const firstModules = await sourceModules(FIRST_ENTRY, [asciiOnly, vscodeRequire]);
const firstSet = new Set(firstModules);
const citePlugins = [asciiOnly, sharedFrom('firstList.js', firstSet), vscodeRequire, bibtexExternal];
// Learnt without sharedFrom, so the list holds the first list's modules too: dist/cite.js re-exports them to the core.
const citeModules = await sourceModules(CITE_ENTRY, [asciiOnly, vscodeRequire, bibtexExternal]);
const citeSet = new Set(citeModules);
const citeShared = sharedFrom('cite.js', citeSet);

const configs = [
  {
    ...node,
    entryPoints: { extension: 'src/extension.ts', deferred: 'src/composition/deferred.ts' },
    outdir: 'dist',
    metafile: true,
  },
  // ESM builds of dependencies first, so esbuild can tree-shake them.
  {
    ...node,
    entryPoints: { core: 'src/composition/core.ts' },
    outdir: 'dist',
    mainFields: ['module', 'main'],
    plugins: [asciiOnly, citeShared, vscodeRequire, bibtexExternal, undiciExternal, markdownExternal],
    metafile: true,
  },
  {
    ...node,
    stdin: {
      contents: sharingIndex(`export { createCiteCore } from './${CITE_ENTRY}';`, citeModules),
      resolveDir: '.',
      sourcefile: 'cite-index.ts',
      loader: 'ts',
    },
    outfile: 'dist/cite.js',
    plugins: citePlugins,
    metafile: true,
  },
  {
    ...node,
    stdin: {
      contents: sharingIndex(`export { createFirstList } from './${FIRST_ENTRY}';`, firstModules),
      resolveDir: '.',
      sourcefile: 'first-list-index.ts',
      loader: 'ts',
    },
    outfile: 'dist/firstList.js',
    metafile: true,
  },
  {
    ...node,
    stdin: {
      contents: "module.exports = require('markdown-it');\n",
      resolveDir: '.',
      sourcefile: 'markdown-library.js',
    },
    outfile: 'dist/markdown.js',
    metafile: true,
  },
  {
    ...node,
    stdin: { contents: "module.exports = require('undici');\n", resolveDir: '.', sourcefile: 'undici-library.js' },
    outfile: 'dist/undici.js',
    metafile: true,
  },
  {
    ...node,
    stdin: {
      contents: "export { parse } from '@retorquere/bibtex-parser';\n",
      resolveDir: '.',
      sourcefile: 'bibtex-library.js',
      loader: 'js',
    },
    outfile: 'dist/bibtex.js',
    mainFields: ['module', 'main'],
    metafile: true,
  },
  {
    ...common,
    entryPoints: { webview: 'src/answer/webview/main.ts', table: 'src/search/table/webview/main.ts' },
    outdir: 'dist',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    metafile: true,
  },
];
const SHIPPED = configs.length;

if (tests) {
  configs.push({
    ...node,
    entryPoints: { index: 'test/extension/index.ts' },
    outdir: 'out/test/extension',
    minify: false,
    sourcemap: 'inline',
    // The emulator's MCP SDK (and express) load from node_modules at run time, only if a test reaches /mcp.
    external: ['vscode', 'mocha', '@modelcontextprotocol/sdk'],
  });
}

// What the entry bundle must never contain: activation must not pay for these.
const FORBIDDEN_IN_ENTRY = [
  /node_modules\/(undici|zod|markdown-it)\//,
  /^src\/(api|render|bib|answer|search\/table)\//,
  /^src\/composition\/core\.ts$/,
  /^src\/citations\/(?!providers\.ts$)/,
  /^src\/chat\/(?!(chatProviders|mcpProvider)\.ts$)/,
  /Commands\.ts$/,
  /^src\/(search\/searchSession|threads\/threadWatcher|service\/(connection|emulator|clientProvider))\.ts$/,
];

/** A bundle that takes `shared` modules from `from` must not bundle copies of them. */
function checkShared(result, bundle, shared, from) {
  const twice = Object.keys(result.metafile?.inputs ?? {}).filter((i) => shared.has(i));
  if (twice.length > 0)
    throw new Error(`dist/${bundle} must take these from dist/${from}, not bundle them:\n  ${twice.join('\n  ')}`);
}

/**
 * The core must reach the BibTeX library, undici and markdown-it only through their own bundles, and the citation
 * bundle's modules only through it.
 */
function checkCore(result) {
  checkShared(result, 'core.js', citeSet, 'cite.js');
  const bad = Object.keys(result.metafile?.inputs ?? {}).filter((i) =>
    /node_modules\/(@retorquere\/bibtex-parser|unicode2latex|undici|markdown-it|linkify-it|mdurl|uc\.micro|punycode\.js|entities)\//.test(
      i,
    ),
  );
  if (bad.length > 0)
    throw new Error(
      `dist/core.js must not bundle the BibTeX library, undici or markdown-it (it loads dist/bibtex.js, dist/undici.js, dist/markdown.js):\n  ${bad.join('\n  ')}`,
    );
}

// What activation itself must not compile: dist/deferred.js has it, required after activation.
const DEFERRED_ONLY = [
  /^src\/search\/(resultItems|legend)\.ts$/,
  /^src\/threads\/(threadItems|persisted)\.ts$/,
  /^src\/citations\//,
  /^src\/service\/demoKey\.ts$/,
  /^src\/usage\/statusCache\.ts$/,
];

function checkEntry(result) {
  const inputs = Object.keys(result.metafile?.inputs ?? {});
  const bad = inputs.filter((i) => FORBIDDEN_IN_ENTRY.some((re) => re.test(i)));
  if (bad.length > 0) {
    throw new Error(
      `dist/extension.js must not bundle these (load them from dist/core.js instead):\n  ${bad.join('\n  ')}`,
    );
  }
  const entry = Object.entries(result.metafile?.outputs ?? {}).find(([file]) => file.endsWith('extension.js'));
  const early = Object.keys(entry?.[1].inputs ?? {}).filter((i) => DEFERRED_ONLY.some((re) => re.test(i)));
  if (early.length > 0)
    throw new Error(
      `dist/extension.js must not bundle these (dist/deferred.js has them, after activation):\n  ${early.join('\n  ')}`,
    );
}

if (watch) {
  const contexts = await Promise.all(configs.map((c) => esbuild.context(c)));
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  const results = await Promise.all(configs.map((c) => esbuild.build(c)));
  checkEntry(results[0]);
  checkCore(results[1]);
  checkShared(results[2], 'cite.js', firstSet, 'firstList.js');
  // Shipped in the VSIX (.vscodeignore): the notices of exactly the packages the shipped bundles contain.
  const notices = thirdPartyNotices(
    results.slice(0, SHIPPED).map((r) => r.metafile),
    import.meta.dirname,
    'Research Desk bundles the following third-party packages into dist/. Their licence notices follow.',
  );
  writeFileSync('dist/THIRD-PARTY-NOTICES.txt', notices);
}
