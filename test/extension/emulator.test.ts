import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ConnectionResult } from '../../src/service/connection';
import { EMULATOR_DEMO_KEY, type UseEmulatorResult } from '../../src/service/emulator';
import { Commands, EnvVars, Settings } from '../../src/platform/ids';
import { acceptQuickInput, api, DEMO_KEYS, emulatorUrl, setUserSettings } from './support';

export function emulatorSuite(): void {
  suite('Use the Local Emulator', () => {
    test('the demo key the command stores is one the emulator accepts (Pro plan)', () => {
      assert.equal(EMULATOR_DEMO_KEY, DEMO_KEYS.pro);
    });

    test('offers the running emulator first; once picked, points user settings at it with the demo key', async () => {
      const desk = await api();
      const url = await emulatorUrl();
      const origin = new URL(url).origin;
      const savedEnv = process.env[EnvVars.emulatorUrl];
      const savedKey = await desk.keys.get(origin);
      // Start from the real service, with no key stored for the emulator.
      const restore = await setUserSettings({ [Settings.baseUrl]: undefined, [Settings.mcpUrl]: undefined });
      process.env[EnvVars.emulatorUrl] = url; // how the demo runner announces it (same process)
      await desk.keys.delete(origin);
      try {
        assert.equal(desk.settings.service.baseUrl, 'https://api.consensus.app');
        const result = await acceptQuickInput(vscode.commands.executeCommand<UseEmulatorResult>(Commands.useEmulator));
        assert.deepEqual(result, { used: true, baseUrl: url, storedDemoKey: true });
        assert.equal(
          vscode.workspace.getConfiguration().inspect(Settings.baseUrl)?.globalValue,
          url,
          'not written to user settings',
        );
        assert.equal(desk.settings.service.baseUrl, url);
        assert.equal(await desk.keys.get(origin), EMULATOR_DEMO_KEY);
        assert.equal(desk.settings.mcp.url, `${url}/mcp`, "chat's MCP server is the emulator's too");
        const check = await vscode.commands.executeCommand<ConnectionResult>(Commands.testConnection);
        assert.equal(check?.outcome, 'connected', check?.message);
      } finally {
        if (savedEnv === undefined) delete process.env[EnvVars.emulatorUrl];
        else process.env[EnvVars.emulatorUrl] = savedEnv;
        if (savedKey) await desk.keys.set(savedKey, origin);
        else await desk.keys.delete(origin);
        await restore();
      }
    });

    test('a mistyped key stored for the emulator is replaced by the demo key; a key the emulator takes is kept', async () => {
      const desk = await api();
      const url = await emulatorUrl();
      const origin = new URL(url).origin;
      const savedEnv = process.env[EnvVars.emulatorUrl];
      const savedKey = await desk.keys.get(origin);
      const restore = await setUserSettings({ [Settings.baseUrl]: undefined, [Settings.mcpUrl]: undefined });
      process.env[EnvVars.emulatorUrl] = url;
      try {
        await desk.keys.set('custom-key-xyz', origin);
        const replaced = await acceptQuickInput(
          vscode.commands.executeCommand<UseEmulatorResult>(Commands.useEmulator),
        );
        assert.deepEqual(replaced, { used: true, baseUrl: url, storedDemoKey: true });
        assert.equal(await desk.keys.get(origin), EMULATOR_DEMO_KEY);

        await setUserSettings({ [Settings.baseUrl]: undefined });
        await desk.keys.set(DEMO_KEYS.teams, origin);
        const kept = await acceptQuickInput(vscode.commands.executeCommand<UseEmulatorResult>(Commands.useEmulator));
        assert.deepEqual(kept, { used: true, baseUrl: url, storedDemoKey: false });
        assert.equal(await desk.keys.get(origin), DEMO_KEYS.teams, 'a working key is kept');
      } finally {
        if (savedEnv === undefined) delete process.env[EnvVars.emulatorUrl];
        else process.env[EnvVars.emulatorUrl] = savedEnv;
        if (savedKey) await desk.keys.set(savedKey, origin);
        else await desk.keys.delete(origin);
        await restore();
      }
    });

    test('cancelling the pick changes nothing', async () => {
      const desk = await api();
      const before = desk.settings.service.baseUrl;
      const pending = vscode.commands.executeCommand<UseEmulatorResult>(Commands.useEmulator);
      // Close the pick once it is shown (pressing Escape until the command returns).
      let done = false;
      void Promise.resolve(pending).then(() => (done = true));
      for (let i = 0; i < 100 && !done; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      }
      assert.deepEqual(await pending, { used: false });
      assert.equal(desk.settings.service.baseUrl, before);
    });
  });
}
