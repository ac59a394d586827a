import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const NOTICES = 'dist/THIRD-PARTY-NOTICES.txt';

// Runs after the build gate of `npm test` (it reads dist/): the VSIX must carry the licence notices of the code it
// bundles.
describe('third-party licence notices', () => {
  before(function () {
    if (!existsSync(join(root, NOTICES)))
      assert.fail(`${NOTICES} is missing: run \`node esbuild.mjs --production\` first`);
  });

  it('name every runtime dependency at its installed version, each with a licence text', () => {
    const text = readFileSync(join(root, NOTICES), 'utf8');
    const deps = Object.keys(
      (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
        .dependencies,
    );
    assert.ok(deps.length >= 4);
    for (const name of deps) {
      const { version } = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      };
      assert.match(
        text,
        new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}@${version.replace(/\./g, '\\.')} \\(`, 'm'),
        `${name}@${version}`,
      );
    }
    const sections = text.split(/\n-{72}\n/);
    assert.ok(sections.length >= deps.length);
    for (const s of sections) assert.match(s, /Permission|Redistribution|licensed under/i, s.slice(0, 200));
  });

  it('are packaged into the VSIX (vsce ls, the file list `vsce package` uses)', function () {
    this.timeout(60_000);
    const files = execFileSync('npx', ['--no-install', 'vsce', 'ls', '--no-dependencies'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).split('\n');
    assert.ok(files.includes(NOTICES), files.join(', '));
    assert.ok(files.includes('dist/core.js'));
    // Test code stays out, the scripted-model helper extension (test/fixtures) above all.
    assert.deepEqual(
      files.filter((f) => f.startsWith('test/') || f.startsWith('out/')),
      [],
    );
  });

  it('package into a VSIX whose README shows no picture the VSIX lacks (as `npm run package` does)', function () {
    this.timeout(120_000);
    execFileSync(process.execPath, ['scripts/vsix-readme.mjs'], { cwd: root, stdio: 'ignore' });
    const readme = readFileSync(join(root, 'dist', 'README.md'), 'utf8');
    assert.match(readme, /^# Research Desk/m);
    assert.doesNotMatch(readme, /!\[[^\]]*\]\((?!https:)/, 'a relative picture in the VSIX README');
    const dir = mkdtempSync(join(tmpdir(), 'research-desk-vsix-'));
    try {
      const out = join(dir, 'research-desk.vsix');
      execFileSync(
        'npx',
        ['--no-install', 'vsce', 'package', '--no-dependencies', '--readme-path', 'dist/README.md', '--out', out],
        { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      assert.ok(statSync(out).size > 10_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
