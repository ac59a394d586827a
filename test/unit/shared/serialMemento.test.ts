import * as assert from 'node:assert/strict';
import { SerialMemento, type MementoLike } from '../../../src/shared/serialMemento';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const copy = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

/**
 * VS Code's globalState as its extension host keeps it (ExtensionMemento): one object for all keys, written to the
 * main thread by a scheduled flush, and replaced by the stored copy the main thread sends back after each write,
 * before it answers the write.
 */
class ExtensionHostMemento implements MementoLike {
  value: Record<string, unknown> = {};
  /** What the main thread has stored. */
  stored: Record<string, unknown> = {};
  private flush: Promise<void> | undefined;

  constructor(
    private readonly flushMs: number,
    private readonly roundTripMs: number,
  ) {}

  keys(): readonly string[] {
    return Object.keys(this.value).filter((k) => this.value[k] !== undefined);
  }

  get<T>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    const value = this.value[key] as T | undefined;
    return value === undefined ? defaultValue : value;
  }

  update(key: string, value: unknown): Promise<void> {
    this.value[key] = copy(value);
    this.flush ??= sleep(this.flushMs).then(async () => {
      this.flush = undefined;
      const sent = copy(this.value);
      await sleep(this.roundTripMs);
      this.stored = sent;
      // The stored copy comes back first, then the answer to the write.
      this.value = copy(this.stored);
    });
    return this.flush;
  }
}

describe('SerialMemento: writes to globalState one after another', () => {
  it('the race it guards against: a write between an earlier flush and its echo is lost without it', async () => {
    const memento = new ExtensionHostMemento(5, 2);
    const first = memento.update('runs', [{ id: 't1' }]);
    await sleep(6); // the first write is on its way; its copy has not come back
    const second = memento.update('tag', 'abc');
    await Promise.all([first, second]);
    await sleep(20);
    assert.equal(memento.stored['tag'], undefined, 'the fake does not reproduce the lost write');
  });

  it('through it, both writes are stored, and reads see each one at once', async () => {
    const memento = new ExtensionHostMemento(5, 2);
    const state = new SerialMemento(memento);
    const first = state.update('runs', [{ id: 't1' }]);
    await sleep(6);
    const second = state.update('tag', 'abc');
    assert.equal(state.get('tag'), 'abc', 'a queued write is not read back');
    assert.deepEqual(state.get('runs'), [{ id: 't1' }]);
    await Promise.all([first, second]);
    await sleep(20);
    assert.deepEqual(memento.stored, { runs: [{ id: 't1' }], tag: 'abc' });
    assert.deepEqual(state.get('runs'), [{ id: 't1' }]);
  });

  it('a stored object is a copy; the last write of a key wins; undefined removes it', async () => {
    const memento = new ExtensionHostMemento(1, 1);
    const state = new SerialMemento(memento);
    const runs = [{ id: 't1', tag: undefined as string | undefined }];
    const a = state.update('runs', runs);
    runs[0]!.tag = 'changed after the write';
    assert.deepEqual(state.get('runs'), [{ id: 't1' }]);
    const b = state.update('n', 1);
    const c = state.update('n', 2);
    assert.equal(state.get('n'), 2);
    const d = state.update('gone', 'x');
    const e = state.update('gone', undefined);
    assert.equal(state.get('gone', 'default'), 'default');
    const f = state.update('sort', null);
    assert.equal(state.get('sort', 'default'), null, 'a queued null is read as the default');
    assert.deepEqual([...state.keys()].sort(), ['n', 'runs', 'sort']);
    await Promise.all([a, b, c, d, e, f]);
    await sleep(10);
    assert.deepEqual(memento.stored, { runs: [{ id: 't1' }], n: 2, sort: null });
    assert.deepEqual([...state.keys()].sort(), ['n', 'runs', 'sort']);
  });

  it('a failed write does not stop the ones after it', async () => {
    let fail = true;
    const inner: MementoLike = {
      keys: () => [],
      get: <T>(_key: string, d?: T) => d as T,
      update: () => {
        const f = fail;
        fail = false;
        return f ? Promise.reject(new Error('storage closed')) : Promise.resolve();
      },
    };
    const state = new SerialMemento(inner);
    await assert.rejects(Promise.resolve(state.update('a', 1)), /storage closed/);
    await state.update('b', 2);
  });
});
