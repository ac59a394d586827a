import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ConnectionResult } from '../../src/service/connection';
import { Commands, Settings } from '../../src/platform/ids';
import { isLoopbackHttpUrl, parseServiceUrl } from '../../src/shared/url';
import { api, setUserSettings } from './support';

export function settingsSuite(): void {
  suite('Settings', () => {
    test('loopback http addresses are recognised, and only those', () => {
      for (const u of ['http://127.0.0.1:8787', 'http://localhost:8787/', 'http://[::1]:8787'])
        assert.ok(isLoopbackHttpUrl(u), u);
      for (const u of [
        'https://127.0.0.1:8787',
        'http://127.0.0.2',
        'http://localhost.evil.example',
        'http://example.com',
        'not a url',
      ]) {
        assert.ok(!isLoopbackHttpUrl(u), u);
      }
      assert.equal(parseServiceUrl('https://user:pw@api.consensus.app'), undefined, 'credentials in the URL accepted');
      assert.equal(parseServiceUrl('ftp://api.consensus.app'), undefined);
    });

    test('a plain-http address that is not this computer is refused before any key is sent', async () => {
      const desk = await api();
      const restore = await setUserSettings({ [Settings.baseUrl]: 'http://research.example.com' });
      try {
        assert.ok(desk.settings.service.problem);
        const r = await vscode.commands.executeCommand<ConnectionResult>(Commands.testConnection);
        assert.equal(r?.outcome, 'bad_address', r?.message);
        assert.match(r.message, /https/);
      } finally {
        await restore();
      }
    });

    test("VS Code's http.proxy reaches the client settings; the timeout is clamped", async () => {
      const desk = await api();
      const restore = await setUserSettings({
        'http.proxy': 'http://127.0.0.1:3128',
        [Settings.requestTimeoutSeconds]: 0,
      });
      try {
        assert.equal(desk.settings.service.proxy, 'http://127.0.0.1:3128');
        assert.equal(desk.settings.service.timeoutMs, 1000);
      } finally {
        await restore();
      }
      assert.equal(desk.settings.service.timeoutMs, 30_000);
    });

    test('authScheme accepts bearer and falls back to x-api-key for anything else', async () => {
      const desk = await api();
      const restore = await setUserSettings({ [Settings.authScheme]: 'bogus' });
      try {
        assert.equal(desk.settings.service.authScheme, 'x-api-key');
      } finally {
        await restore();
      }
    });
  });
}
