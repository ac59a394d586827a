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

export function shipped<T>(dir: string, contents: string): T {
  const out = mkdtempSync(join(tmpdir(), 'rd-shipped-'));
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
      logLevel: 'silent',
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(file) as T;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
