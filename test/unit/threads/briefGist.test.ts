import * as assert from 'node:assert/strict';
import {
  briefGist,
  echoesInstruction,
  gist,
  selectionBrief,
  selectionOf,
  SELECTION_QUESTION,
  threadLabel,
} from '../../../src/threads/briefGist';

const CLAIM = 'Creatine supplementation improves short-term memory in healthy adults, as several trials report.';

describe('threads: what a thread is called (briefGist)', () => {
  it('reads the passage back out of both forms of a selection brief, and nothing out of other text', () => {
    assert.equal(selectionOf(selectionBrief(`  ${CLAIM}\n`)), CLAIM);
    assert.equal(selectionOf(selectionBrief('line one\n"""\nline two', 'Find trials.')), 'line one\n"""\nline two');
    assert.equal(selectionOf('Does creatine help memory?'), undefined);
    assert.equal(selectionOf(`${SELECTION_QUESTION} and more`), undefined);
    assert.equal(selectionOf('Quote:\n"""\nx\n"""'), undefined);
  });

  it('cuts a gist between words, with an ellipsis, and never inside a surrogate pair', () => {
    assert.equal(gist('Short text'), 'Short text');
    assert.equal(gist('  several\n lines\tof text  '), 'several lines of text');
    const g = gist(CLAIM, 40);
    assert.ok(g.endsWith('…') && [...g].length <= 40, g);
    assert.ok(CLAIM.startsWith(g.slice(0, -1)), g);
    assert.ok(!/\s…$|,…$/u.test(g), `ends on a word: ${g}`);
    assert.equal(gist('x'.repeat(100), 10), `${'x'.repeat(9)}…`);
    const emoji = gist('😀'.repeat(30), 10);
    assert.equal([...emoji].length, 10);
    assert.ok(!/[\uD800-\uDBFF]…$/u.test(emoji), 'a half surrogate');
  });

  it('names a selection brief by its passage, never by the instruction sentence; other briefs by their first words', () => {
    const plain = briefGist(selectionBrief(CLAIM));
    assert.match(plain, /^Creatine supplementation improves short-term memory/u);
    assert.ok(!plain.includes('What does the research say'), plain);
    assert.match(briefGist(selectionBrief(CLAIM, 'Find randomized trials that test this claim.')), /^Creatine/u);
    // Two selections, two names.
    assert.notEqual(briefGist(selectionBrief('Sleep loss impairs memory.')), briefGist(selectionBrief(CLAIM)));
    assert.equal(briefGist('\n\n# Does bilingualism help?\n\nMore detail.'), 'Does bilingualism help?');
    assert.equal(briefGist('- Compare these trials'), 'Compare these trials');
    assert.equal(briefGist(''), '');
  });

  it("shows the service's title unless it only echoes the instruction, then the gist", () => {
    const own = briefGist(selectionBrief(CLAIM));
    // The emulator's frames around the instruction, and the sentence itself (a service that titles by first sentence).
    for (const echo of [
      'Evidence on the research say about this passage from my draft',
      'Research review — the research say about this passage from my draft',
      'What does the research say about this passage from my draft?',
    ]) {
      assert.ok(echoesInstruction(echo), echo);
      assert.equal(threadLabel(echo, own), own);
    }
    assert.equal(
      threadLabel('Creatine and memory: what the studies show', own),
      'Creatine and memory: what the studies show',
    );
    assert.equal(threadLabel(null, own), own);
    assert.equal(threadLabel('  ', own), own);
    assert.equal(threadLabel(undefined, undefined), '');
    // Nothing better known: the service's title as it is.
    assert.equal(
      threadLabel('Evidence on the research say about this passage from my draft', undefined),
      'Evidence on the research say about this passage from my draft',
    );
  });
});
