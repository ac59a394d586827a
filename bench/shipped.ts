/**
 * Source modules as the extension ships them, for the benches that time them in plain Node: `contents` (a module whose
 * imports resolve from `dir`) bundled and minified by esbuild as the extension's bundles are, then required. Run
 * through tsx instead, every call of a function imported from another module goes through a getter (its CommonJS
 * form of `export`), a cost the bundles do not have: a third of the completion index's time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';

/** `external`: packages left to `require` at run time (as the extension loads undici from a bundle of its own). */
export function shipped<T>(dir: string, contents: string, external: string[] = []): T {
  // Under dir's node_modules when something is left external, so that its require finds the package there.
  const out = mkdtempSync(join(external.length ? join(dir, 'node_modules') : tmpdir(), '.rd-shipped-'));
  try {
    const file = join(out, 'bundle.js');
    buildSync({
      stdin: { contents, resolveDir: dir, loader: 'ts' },
      bundle: true,
      minify: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: file,
      external,
      logLevel: 'silent',
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as T;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
