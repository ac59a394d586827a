/**
 * A bundle loaded with V8's code cache (src/composition/codeCache.ts), each session a process of its own as each
 * extension host is: the first compiles and saves, the next takes the cache; another build, a damaged cache or a
 * folder that cannot be written costs only the compile; the module is the one `require` knows, its stack traces
 * point at its own lines, and a bundle that throws is not left half loaded.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { requireWithCodeCache } from '../../../src/composition/codeCache';

/** A bundle of some size (V8 caches little for a tiny script), requiring a file beside it. */
function bundleSource(variant: string): string {
  const fns = Array.from(
    { length: 200 },
    (_, i) => `function f${i}(x) { return x.split('').map((c, j) => c.charCodeAt(0) * ${i} + j).join('-'); }`,
  );
  return [
    `'use strict';`,
    `const dep = require('./dep.js');`,
    `exports.variant = '${variant}';`,
    `exports.fail = () => { throw new Error('thrown on line 4'); };`,
    `exports.answer = () => dep.base + f7('ab').length;`,
    ...fns,
  ].join('\n');
}

interface Session {
  fromCache: boolean;
  variant: string;
  answer: number;
  same: boolean;
  stack: string;
  /** What save() gave: undefined when it saved (or had nothing to save), else why not. */
  saveError?: string;
}

describe('code cache of a bundle (one process per session)', function () {
  this.timeout(60_000);
  let root: string;
  let loader: string;
  let cacheDir: string;

  /** One session: loads `file` with the cache in `dir`, uses it, saves its cache, reports. */
  const session = (file: string, dir = cacheDir): Session => {
    const script = `
      const { requireWithCodeCache } = require(${JSON.stringify(loader)});
      const b = requireWithCodeCache(${JSON.stringify(file)}, ${JSON.stringify(dir)});
      const m = b.exports;
      let stack = '';
      try { m.fail(); } catch (e) { stack = e.stack; }
      const out = { fromCache: b.fromCache, variant: m.variant, answer: m.answer(), same: require(${JSON.stringify(file)}) === m, stack };
      b.save().then((saveError) => process.stdout.write(JSON.stringify({ ...out, saveError })));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as Session;
  };
  const cacheFiles = (): string[] => readdirSync(cacheDir).sort();
  const writeBundle = (dir: string, source: string): string => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'dep.js'), 'exports.base = 40;');
    writeFileSync(join(dir, 'cite.js'), source);
    return join(dir, 'cite.js');
  };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'research-desk-code-cache-'));
    loader = join(root, 'codeCache.js');
    buildSync({
      entryPoints: [join(__dirname, '..', '..', '..', 'src', 'composition', 'codeCache.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: loader,
      logLevel: 'silent',
    });
    cacheDir = join(root, 'cache');
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('compiles and saves in the first session; the next takes the cache; the module is the one require knows', () => {
    const a = writeBundle(join(root, 'a'), bundleSource('one'));
    const first = session(a);
    assert.deepEqual([first.fromCache, first.variant, first.answer, first.same], [false, 'one', 47, true]);
    assert.equal(first.saveError, undefined);
    assert.equal(cacheFiles().length, 1);
    assert.match(cacheFiles()[0]!, /^cite\.js\.[0-9a-f]{32}\.v8cache$/);
    const second = session(a);
    assert.deepEqual([second.fromCache, second.variant, second.answer, second.same], [true, 'one', 47, true]);
    // The same build in another folder does not take it: the cache carries its file's path into stack traces.
    assert.equal(session(writeBundle(join(root, 'a2'), bundleSource('one'))).fromCache, false);
  });

  it("points stack traces at the bundle's own file and lines, from the cache too", () => {
    const file = writeBundle(join(root, 'lines'), bundleSource('one'));
    for (const s of [session(file), session(file)]) assert.ok(s.stack.includes(`${file}:4:`), s.stack);
  });

  it("never runs another build's cache, even of the same length; the older cache is removed", () => {
    const before = cacheFiles();
    const other = bundleSource('two');
    assert.equal(other.length, bundleSource('one').length);
    const b = writeBundle(join(root, 'b'), other);
    const first = session(b);
    assert.deepEqual([first.fromCache, first.variant], [false, 'two']);
    assert.equal(cacheFiles().length, 1);
    assert.notDeepEqual(cacheFiles(), before);
    assert.equal(session(b).fromCache, true);
  });

  it('a damaged cache is rejected: the bundle compiles, works, and a good cache replaces it', () => {
    const b = join(root, 'b', 'cite.js');
    const [file] = cacheFiles();
    const good = readFileSync(join(cacheDir, file!));
    for (const bad of [Buffer.alloc(0), Buffer.from('not a code cache'), good.subarray(0, good.length >> 1)]) {
      writeFileSync(join(cacheDir, file!), bad);
      const hurt = session(b);
      assert.deepEqual([hurt.fromCache, hurt.variant, hurt.answer], [false, 'two', 47]);
      assert.equal(session(b).fromCache, true, 'the cache saved after a rejected one is taken');
    }
  });

  it('a folder that cannot be written costs only the compile', () => {
    const blocked = join(root, 'blocked');
    writeFileSync(blocked, 'a file where the folder would be');
    const s = session(join(root, 'b', 'cite.js'), join(blocked, 'cache'));
    assert.deepEqual([s.fromCache, s.variant, s.answer], [false, 'two', 47]);
    assert.match(s.saveError ?? '', /EEXIST|ENOTDIR/);
    assert.equal(readFileSync(blocked, 'utf8'), 'a file where the folder would be');
  });

  it('a bundle that throws while loading is not left half loaded; without a folder it is a plain require', () => {
    const dir = join(root, 'throws');
    const file = writeBundle(dir, `exports.partial = true;\nthrow new Error('broken bundle');`);
    for (let i = 0; i < 2; i++) assert.throws(() => requireWithCodeCache(file, cacheDir), /broken bundle/);
    assert.equal(require.cache[file], undefined);
    const plain = writeBundle(join(root, 'plain'), bundleSource('three'));
    const loaded = requireWithCodeCache(plain, undefined);
    assert.equal((loaded.exports as { variant: string }).variant, 'three');
    assert.equal(loaded.fromCache, false);
    // Already required: the same instance, whatever the folder.
    assert.equal(requireWithCodeCache(plain, cacheDir).exports, loaded.exports);
  });
});
