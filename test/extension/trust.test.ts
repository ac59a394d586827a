import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ConnectionResult } from '../../src/service/connection';
import { Commands, Settings } from '../../src/platform/ids';
import { api, closedPortUrl, DEMO_KEYS, extension, useEmulatorSettings } from './support';

/**
 * Trusted and Restricted Mode. The runner opens a folder whose .vscode/settings.json sets a
 * decoy researchDesk.baseUrl; without the runner, the suite writes one itself.
 */
export function trustSuite(): void {
  suite(`Workspace trust (this window: ${vscode.workspace.isTrusted ? 'trusted' : 'Restricted Mode'})`, () => {
    let url: string;
    let decoy: string | undefined;
    let wroteDecoy = false;
    let restoreSettings: () => Promise<void> = () => Promise.resolve();
    let savedKey: string | undefined;

    suiteSetup(async () => {
      const desk = await api();
      ({ url, restore: restoreSettings } = await useEmulatorSettings());
      savedKey = await desk.keys.get();
      await desk.keys.set(DEMO_KEYS.pro);
      // Read the folder's settings file itself: in Restricted Mode VS Code hides the value.
      const folder = vscode.workspace.workspaceFolders?.[0];
      decoy = folder ? await readWorkspaceBaseUrl(folder.uri) : undefined;
      if (decoy === undefined && folder) {
        try {
          decoy = await closedPortUrl();
          await vscode.workspace
            .getConfiguration()
            .update(Settings.baseUrl, decoy, vscode.ConfigurationTarget.Workspace);
          wroteDecoy = true;
        } catch {
          decoy = undefined; // Restricted Mode may refuse to write it: the tests needing it skip.
        }
      }
    });

    suiteTeardown(async () => {
      const desk = await api();
      if (wroteDecoy)
        await vscode.workspace
          .getConfiguration()
          .update(Settings.baseUrl, undefined, vscode.ConfigurationTarget.Workspace);
      if (savedKey) await desk.keys.set(savedKey);
      else await desk.keys.delete();
      await restoreSettings();
    });

    test('the window is in the mode the runner asked for', function () {
      const expected = process.env.RESEARCH_DESK_EXPECT_TRUSTED;
      if (expected === undefined) this.skip();
      assert.equal(String(vscode.workspace.isTrusted), expected);
    });

    test('a workspace-level researchDesk.baseUrl is ignored: requests go to the user setting', async function () {
      if (decoy === undefined) this.skip(); // no folder open, or the workspace setting could not be written
      const desk = await api();
      if (vscode.workspace.isTrusted)
        assert.equal(vscode.workspace.getConfiguration().inspect(Settings.baseUrl)?.workspaceValue, decoy);
      assert.notEqual(decoy, url);
      assert.equal(desk.settings.service.baseUrl, url);
      const r = await vscode.commands.executeCommand<ConnectionResult>(Commands.testConnection);
      assert.equal(r?.baseUrl, url);
      assert.equal(r?.outcome, 'connected', r?.message);
    });

    test('trusted: VS Code would apply the workspace value, Research Desk still does not', async function () {
      if (!vscode.workspace.isTrusted || decoy === undefined) this.skip(); // trusted windows only
      const desk = await api();
      assert.equal(vscode.workspace.getConfiguration().get(Settings.baseUrl), decoy);
      assert.equal(desk.settings.service.baseUrl, url);
    });

    test('Restricted Mode: the extension runs and its commands work (searching stays available)', async function () {
      if (vscode.workspace.isTrusted) this.skip(); // Restricted Mode only
      assert.equal(extension().isActive, true);
      // VS Code itself withholds the restricted setting's workspace value here.
      assert.equal(vscode.workspace.getConfiguration().get(Settings.baseUrl), url);
      const r = await vscode.commands.executeCommand<ConnectionResult>(Commands.testConnection);
      assert.equal(r?.outcome, 'connected', r?.message);
    });
  });
}

async function readWorkspaceBaseUrl(folder: vscode.Uri): Promise<string | undefined> {
  try {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, '.vscode', 'settings.json'));
    const json = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    const value = json[Settings.baseUrl];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
