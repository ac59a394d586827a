// The licence notices of every package bundled into dist/ (esbuild drops their comments with
// `legalComments: 'none'`, and most MIT/ISC packages carry their notice only in a LICENSE file, which
// `legalComments` would not keep anyway). Built from the bundles' metafiles, so the list is exactly what
// ships; the build fails when a bundled package has neither a licence file nor a licence it can state.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const PACKAGE_DIR = /^(.*?node_modules\/(?:@[^/]+\/)?[^/]+)\//;
const NOTICE_FILE = /^(licen[cs]e|copying|notice)([-._][\w.-]*)?$/i;

// The standard texts, for packages that declare MIT or ISC in package.json but ship no licence file
// (unicode2latex, the @unified-latex packages): the notice is the licence with the author as copyright holder.
const MIT = (holder) => `MIT License

Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;
const ISC = (holder) => `ISC License

Copyright (c) ${holder}

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
`;

/** Package directories (relative to the build's working directory) whose files a metafile's inputs include. */
export function bundledPackages(metafiles) {
  const dirs = new Set();
  for (const m of metafiles)
    for (const input of Object.keys(m?.inputs ?? {})) {
      const dir = PACKAGE_DIR.exec(input.replace(/\\/g, '/'))?.[1];
      if (dir) dirs.add(dir);
    }
  return [...dirs];
}

/** The notices text: one section per package name and version, sorted by name. */
export function thirdPartyNotices(metafiles, root, intro) {
  const sections = new Map();
  const missing = [];
  for (const dir of bundledPackages(metafiles)) {
    const abs = join(root, dir);
    const pkg = JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8'));
    const id = `${pkg.name}@${pkg.version}`;
    if (sections.has(id)) continue;
    const files = readdirSync(abs)
      .filter((f) => NOTICE_FILE.test(f))
      .sort();
    const texts = files.map((f) => readFileSync(join(abs, f), 'utf8').trim());
    const holder = typeof pkg.author === 'string' ? pkg.author : pkg.author?.name;
    const standard = { MIT, ISC }[pkg.license];
    if (!texts.length && standard && holder) texts.push(standard(holder).trim());
    if (!texts.length) {
      missing.push(id);
      continue;
    }
    const source =
      typeof pkg.repository === 'string'
        ? pkg.repository
        : (pkg.repository?.url ?? `https://www.npmjs.com/package/${pkg.name}`);
    sections.set(id, `${id} (${pkg.license ?? 'see below'})\n${source}\n\n${texts.join('\n\n')}`);
  }
  if (missing.length) throw new Error(`No licence text found for bundled packages: ${missing.join(', ')}`);
  const body = [...sections.keys()].sort().map((id) => sections.get(id));
  return `${intro}\n\n${body.join(`\n\n${'-'.repeat(72)}\n\n`)}\n`;
}
