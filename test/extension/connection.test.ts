import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ConnectionResult } from '../../src/service/connection';
import { Commands, Settings } from '../../src/platform/ids';
import { api, closedPortUrl, DEMO_KEYS, setUserSettings, useEmulatorSettings } from './support';

const testConnection = (): Thenable<ConnectionResult | undefined> =>
  vscode.commands.executeCommand<ConnectionResult>(Commands.testConnection);

export function connectionSuite(): void {
  suite('Test Connection against the emulator', () => {
    let url: string;
    let restoreSettings: () => Promise<void> = () => Promise.resolve();
    let savedKey: string | undefined;
    const messages = new Map<string, string>();

    suiteSetup(async () => {
      const desk = await api();
      ({ url, restore: restoreSettings } = await useEmulatorSettings());
      savedKey = await desk.keys.get();
    });

    suiteTeardown(async () => {
      const desk = await api();
      if (savedKey) await desk.keys.set(savedKey);
      else await desk.keys.delete();
      await restoreSettings();
    });

    test('a working key: success, naming the address, and the core bundle is now loaded', async () => {
      const desk = await api();
      await desk.keys.set(DEMO_KEYS.pro);
      const r = await testConnection();
      assert.equal(r?.outcome, 'connected', r?.message);
      assert.equal(r.ok, true);
      assert.equal(r.baseUrl, url);
      assert.ok(r.message.includes(url), r.message);
      assert.equal(desk.isCoreLoaded(), true);
      console.log(`[research-desk] first command loaded dist/core.js in ${desk.coreLoadMs()?.toFixed(1)} ms.`);
      messages.set('connected', r.message);
    });

    test('a revoked key: 401, with Set API Key offered', async () => {
      const desk = await api();
      await desk.keys.set(DEMO_KEYS.revoked);
      const r = await testConnection();
      assert.equal(r?.outcome, 'unauthorized', r?.message);
      assert.equal(r.status, 401);
      assert.match(r.message, /401/);
      assert.ok(r.actions.includes('setApiKey'));
      messages.set('unauthorized', r.message);
    });

    test('a past-due account: 402, with Open Billing offered', async () => {
      const desk = await api();
      await desk.keys.set(DEMO_KEYS.pastDue);
      const r = await testConnection();
      assert.equal(r?.outcome, 'payment_required', r?.message);
      assert.equal(r.status, 402);
      assert.match(r.message, /402/);
      assert.ok(r.actions.includes('openBilling'));
      messages.set('payment_required', r.message);
    });

    test('nothing listening: a network problem naming the address', async () => {
      const desk = await api();
      const closed = await closedPortUrl();
      const restore = await setUserSettings({ [Settings.baseUrl]: closed });
      try {
        await desk.keys.set(DEMO_KEYS.pro);
        const r = await testConnection();
        assert.equal(r?.outcome, 'network', r?.message);
        assert.equal(r.baseUrl, closed);
        assert.ok(r.message.includes(closed), r.message);
        assert.ok(r.actions.includes('retry'));
        messages.set('network', r.message);
      } finally {
        await desk.keys.delete();
        await restore();
      }
    });

    test('no key: says so and offers Set API Key, without calling the service', async () => {
      const desk = await api();
      await desk.keys.delete();
      const r = await testConnection();
      assert.equal(r?.outcome, 'no_key', r?.message);
      assert.ok(r.actions.includes('setApiKey'));
    });

    test('the four outcomes read differently, each one sentence', () => {
      assert.equal(messages.size, 4, 'an earlier test did not record its message');
      assert.equal(new Set(messages.values()).size, 4);
      for (const m of messages.values()) {
        assert.equal(m.split(/[.!?](\s|$)/).filter((s) => s && s.trim()).length, 1, `not one sentence: ${m}`);
        assert.ok(
          !m.includes(DEMO_KEYS.pro) && !m.includes(DEMO_KEYS.revoked) && !m.includes(DEMO_KEYS.pastDue),
          'a key leaked',
        );
      }
    });

    test('an enterprise key sent as Authorization: Bearer connects', async () => {
      const desk = await api();
      const restore = await setUserSettings({ [Settings.authScheme]: 'bearer' });
      try {
        assert.equal(desk.settings.service.authScheme, 'bearer');
        await desk.keys.set(DEMO_KEYS.enterprise);
        const r = await testConnection();
        assert.equal(r?.outcome, 'connected', r?.message);
      } finally {
        await restore();
      }
    });
  });
}
