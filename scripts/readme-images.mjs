#!/usr/bin/env node
// The README's pictures, refreshed from the UI flows' screenshots (run `npm run test:ui` first): each main view as
// the flows leave it, copied to docs/images/ under a stable name.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const shots = join(root, 'test-results', 'ui');
const out = join(root, 'docs', 'images');
/** README name ← the UI flow's screenshot. */
const PICTURES = {
  'research-view.png': 'search-03-tooltip.png',
  'filters.png': 'filters-07a-escape-asks.png',
  'evidence-table.png': 'table-01-sorted-light.png',
  'answer-view.png': 'answer-02-answer-light.png',
  'cite-latex.png': 'cite-02-tex-cited.png',
  'chat.png': 'chat-03-papers-in-chat.png',
};
mkdirSync(out, { recursive: true });
const missing = Object.values(PICTURES).filter((s) => !existsSync(join(shots, s)));
if (missing.length) {
  console.error(`Missing screenshots (run npm run test:ui first): ${missing.join(', ')}`);
  process.exit(1);
}
for (const [name, shot] of Object.entries(PICTURES)) copyFileSync(join(shots, shot), join(out, name));
console.log(`Copied ${Object.keys(PICTURES).length} pictures to docs/images/.`);
