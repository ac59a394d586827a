// A fault that answers a given body: hostile service text (422 loc/msg) and odd listings for the editor's tests.
import { strict as assert } from 'node:assert';
import { DEMO_KEYS, startEmulator, type RunningEmulator } from './index';
import { call } from './testHelpers';

describe('emulator: faults with a given body', function () {
  let emu: RunningEmulator;
  before(async function () {
    this.timeout(60_000);
    emu = await startEmulator({ port: 0, rateLimits: false, speed: 1000, controlApi: true });
  });
  after(() => emu.close());
  beforeEach(() => emu.control.reset());

  it('status_before answers the body with the status, charges nothing, and then the route works again', async () => {
    const detail = [
      {
        loc: ['query', '[Renew](command:workbench.action.openSettings)'],
        msg: '[Open](command:x) is not valid',
        type: 'value_error',
      },
    ];
    emu.control.injectFault({ route: 'search', kind: 'status_before', status: 422, body: { detail } });
    const r = await call<{ detail: unknown }>(emu.url, '/v1/search?query=sleep', { key: DEMO_KEYS.pro });
    assert.equal(r.status, 422);
    assert.deepEqual(r.body.detail, detail);
    assert.equal(emu.control.charges().length, 0);
    assert.equal((await call(emu.url, '/v1/search?query=sleep', { key: DEMO_KEYS.pro })).status, 200);
  });

  it('status_after takes effect, then answers the body', async () => {
    emu.control.injectFault({
      route: 'create_thread',
      kind: 'status_after',
      status: 503,
      body: { detail: 'busy [x](command:y)' },
    });
    const r = await call<{ detail: string }>(emu.url, '/v1/threads', {
      key: DEMO_KEYS.pro,
      body: { input_message: 'Does sleep help memory?' },
    });
    assert.equal(r.status, 503);
    assert.equal(r.body.detail, 'busy [x](command:y)');
    assert.equal(emu.control.threads(DEMO_KEYS.pro).length, 1);
  });

  it('over the control API too (a JSON body travels as it is)', async () => {
    const body = {
      threads: [
        {
          thread_id: 't1',
          title: 'a',
          url: 'https://x/t1',
          preview: 'p',
          interaction_count: 1,
          last_activity_at: '2026-01-01T00:00:00Z',
        },
      ],
      has_more: false,
    };
    const res = await fetch(`${emu.url}/_emulator/injectFault`, {
      method: 'POST',
      body: JSON.stringify([{ route: 'list_threads', kind: 'status_before', status: 200, body }]),
    });
    assert.equal(res.status, 200);
    const r = await call(emu.url, '/v1/threads', { key: DEMO_KEYS.pro });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, body);
  });
});
