/** Scheduler order, priority, per-class rates and aborts, on a fake clock (no timing asserts on real time). */
import assert from 'node:assert/strict';
import { Scheduler } from '../../../src/api/scheduler';
import { fakeClock } from './helpers';

describe('api/scheduler', () => {
  it('spaces requests of a class by its interval (published 1/s and 3/s by default)', async () => {
    const clock = fakeClock();
    const s = new Scheduler({}, clock);
    assert.equal(s.intervalOf('search'), 1010);
    assert.equal(s.intervalOf('list'), 1010);
    assert.equal(s.intervalOf('poll'), 344);
    const starts: number[] = [];
    await Promise.all([0, 1, 2, 3].map(() => s.acquire('search').then(() => starts.push(clock.now()))));
    assert.deepEqual(starts, [0, 1010, 2020, 3030]);
  });

  it('done() makes the next request wait a full interval after the previous answer', async () => {
    const clock = fakeClock();
    const s = new Scheduler({}, clock);
    await s.acquire('search');
    clock.t = 700; // the answer arrives 700 ms later (slow connection setup, say)
    s.done('search');
    await s.acquire('search');
    assert.equal(clock.now(), 1710);
    s.done('search'); // answered at once: the start-based interval already covers it
    await s.acquire('search');
    assert.equal(clock.now(), 2720);
  });

  it('options override the rates and Infinity disables a class', async () => {
    const clock = fakeClock();
    const s = new Scheduler({ search: 10, poll: Infinity }, clock);
    assert.equal(s.intervalOf('search'), 110);
    assert.equal(s.intervalOf('poll'), 0);
    await Promise.all([1, 2, 3, 4, 5].map(() => s.acquire('poll')));
    assert.deepEqual(clock.sleeps, []);
  });

  it('classes are independent: a poll does not wait behind a search', async () => {
    const clock = fakeClock();
    const s = new Scheduler({}, clock);
    const order: string[] = [];
    const a = s.acquire('search').then(() => order.push('search1'));
    const b = s.acquire('search').then(() => order.push('search2'));
    const c = s.acquire('poll').then(() => order.push('poll1'));
    await Promise.all([a, b, c]);
    assert.deepEqual(order.indexOf('poll1') < order.indexOf('search2'), true);
  });

  it('foreground requests go before queued background polls; FIFO within a priority', async () => {
    const clock = fakeClock();
    const s = new Scheduler({}, clock);
    const order: string[] = [];
    const go = (name: string, p: 'foreground' | 'background') => s.acquire('poll', p).then(() => order.push(name));
    await Promise.all([
      go('bg1', 'background'),
      go('bg2', 'background'),
      go('bg3', 'background'),
      go('fg1', 'foreground'),
      go('fg2', 'foreground'),
    ]);
    assert.deepEqual(order, ['bg1', 'fg1', 'fg2', 'bg2', 'bg3']);
  });

  it('a queued request can be aborted; it rejects with the reason and frees its slot', async () => {
    const clock = fakeClock();
    const s = new Scheduler({}, clock);
    const ac = new AbortController();
    const order: string[] = [];
    const first = s.acquire('list').then(() => order.push('first'));
    const second = s.acquire('list', 'foreground', ac.signal).then(
      () => order.push('second'),
      (e: Error) => order.push(`aborted:${e.name}`),
    );
    const third = s.acquire('list').then(() => order.push('third'));
    assert.equal(s.pending('list'), 2);
    ac.abort();
    assert.equal(s.pending('list'), 1);
    await Promise.all([first, second, third]);
    assert.deepEqual(order, ['first', 'aborted:AbortError', 'third']);
    await assert.rejects(s.acquire('list', 'foreground', ac.signal));
  });
});
