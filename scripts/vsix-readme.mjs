#!/usr/bin/env node
// The README the VSIX carries: README.md without its pictures, which live in docs/images/ (kept out of the VSIX to
// keep it small) and would show as broken images on the extension's page in VS Code.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const text = readFileSync(join(root, 'README.md'), 'utf8');
const stripped = text.replace(/<!-- pictures -->[\s\S]*?<!-- \/pictures -->\n*/g, '');
if (/!\[[^\]]*\]\((?!https:)/.test(stripped)) {
  console.error('README.md has a picture outside the <!-- pictures --> block: the VSIX would show it broken.');
  process.exit(1);
}
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'README.md'), stripped);
