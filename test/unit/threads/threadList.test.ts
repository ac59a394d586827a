import * as assert from 'node:assert/strict';
import { uniqueThreads } from '../../../src/threads/threadList';

const t = (thread_id: string, title = thread_id): { thread_id: string; title: string } => ({ thread_id, title });

describe('threads listing: one item per thread id', () => {
  it('keeps the first (newest) of a thread listed twice on one page', () => {
    const page = [t('a', 'new title'), t('b'), t('a', 'old title'), t('c'), t('b')];
    const out = uniqueThreads(page);
    assert.deepEqual(
      out.map((x) => x.thread_id),
      ['a', 'b', 'c'],
    );
    assert.equal(out[0]?.title, 'new title');
  });

  it('leaves out threads already shown (Load More after the list moved)', () => {
    assert.deepEqual(
      uniqueThreads([t('c'), t('d'), t('d')], new Set(['a', 'c'])).map((x) => x.thread_id),
      ['d'],
    );
  });

  it('does not change the set it is given', () => {
    const shown = new Set(['a']);
    uniqueThreads([t('b')], shown);
    assert.deepEqual([...shown], ['a']);
  });
});
