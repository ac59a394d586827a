import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  Commands,
  ContextKeys,
  COST_SETTINGS,
  KEY_ROUTING_SETTINGS,
  Settings,
  TRUSTED_WORKSPACE_SETTINGS,
  ViewContainers,
  Views,
  WebviewTypes,
  WRITE_LOCATION_SETTINGS,
} from '../../src/platform/ids';
import { api, extension, testCore } from './support';

interface Manifest {
  activationEvents?: string[];
  main?: string;
  capabilities?: { untrustedWorkspaces?: { supported?: unknown; restrictedConfigurations?: string[] } };
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    viewsWelcome: { view: string; contents: string; when?: string }[];
    menus?: Record<string, { command: string }[]>;
    configuration: { properties: Record<string, { default?: unknown; scope?: string }> };
  };
}

const manifest = (): Manifest => extension().packageJSON as Manifest;
const sorted = (xs: Iterable<string>): string[] => [...xs].sort();

export function contributionsSuite(): void {
  suite('Contributions match what the extension registers', () => {
    test('every contributed command is in the ids module and registered, and nothing else is', async () => {
      const desk = await api();
      const declared = manifest().contributes.commands.map((c) => c.command);
      assert.deepEqual(sorted(declared), sorted(Object.values(Commands)));
      assert.deepEqual(sorted(desk.registeredCommands), sorted(declared));
      const all = new Set(await vscode.commands.getCommands(true));
      for (const id of declared) assert.ok(all.has(id), `${id} is declared but not registered`);
      // VS Code registers `<view id>.focus` and friends for every contributed view.
      const ours = [...all].filter(
        (c) => c.startsWith('researchDesk.') && !Object.values(Views).some((v) => c.startsWith(`${v}.`)),
      );
      assert.deepEqual(sorted(ours), sorted(declared), 'a researchDesk.* command is registered but not declared');
    });

    test("every command has exactly one handler: the entry bundle runs it, or the core's table does", async () => {
      const desk = await api();
      const core = await testCore();
      assert.ok(desk.localCommands.length > 0, 'the entry bundle runs some commands itself');
      for (const id of Object.values(Commands)) {
        const local = desk.localCommands.includes(id);
        assert.notEqual(
          local,
          core.handles(id),
          `${id}: ${local ? 'both the entry bundle and the core handle it' : 'no handler'}`,
        );
      }
    });

    test('every contributed view is in the ids module and has a tree', async () => {
      const desk = await api();
      const m = manifest().contributes;
      assert.deepEqual(
        m.viewsContainers.activitybar.map((c) => c.id),
        Object.values(ViewContainers),
      );
      const views = Object.values(m.views)
        .flat()
        .map((v) => v.id);
      assert.deepEqual(sorted(views), sorted(Object.values(Views)));
      assert.deepEqual(sorted(desk.registeredViews), sorted(views));
      const all = new Set(await vscode.commands.getCommands(true));
      assert.ok(
        all.has(`workbench.view.extension.${ViewContainers.researchDesk}`),
        'the activity-bar container is missing',
      );
      // Opening the view works (VS Code's own focus command for a contributed view).
      await vscode.commands.executeCommand(`${Views.results}.focus`);
    });

    test('the welcome views offer Set API Key, Get a Key and the emulator, keyed on the context key', () => {
      const welcome = manifest().contributes.viewsWelcome;
      // Offered once the key has been read and is missing: not while a reloaded window is still reading it.
      const noKeyWhen = `${ContextKeys.keyKnown} && !${ContextKeys.hasKey}`;
      const noKey = welcome.find((w) => w.when === noKeyWhen && w.view === Views.results);
      assert.ok(noKey, 'no welcome content for the no-key state');
      const nls = readNls();
      const contents = resolveNls(noKey.contents, nls);
      for (const id of [Commands.setApiKey, Commands.getKey, Commands.useEmulator]) {
        assert.ok(contents.includes(`(command:${id})`), `the welcome view lacks a button for ${id}`);
      }
      // The Threads view asks for the key too, and offers the agent only with a key.
      const threadsNoKey = welcome.find((w) => w.when === noKeyWhen && w.view === Views.threads);
      assert.ok(
        threadsNoKey && resolveNls(threadsNoKey.contents, nls).includes(`(command:${Commands.setApiKey})`),
        'the Threads view asks for a key',
      );
      const threadsKey = welcome.find((w) => w.when === ContextKeys.hasKey && w.view === Views.threads);
      assert.ok(
        threadsKey && resolveNls(threadsKey.contents, nls).includes(`(command:${Commands.askAgent})`),
        'the Threads view offers the agent with a key',
      );
      for (const w of welcome) assert.ok(w.when, `welcome content for ${w.view} shows whether or not a key is set`);
      for (const w of welcome) {
        for (const [, id] of resolveNls(w.contents, nls).matchAll(/\(command:([\w.]+)\)/g)) {
          assert.ok((Object.values(Commands) as string[]).includes(id!), `welcome links to unknown command ${id}`);
        }
      }
    });

    test('every setting is in the ids module and has a default VS Code knows', () => {
      const props = manifest().contributes.configuration.properties;
      const ids = Object.values(Settings).filter((s) => s !== Settings.section);
      assert.deepEqual(sorted(Object.keys(props)), sorted(ids));
      for (const [id, schema] of Object.entries(props)) {
        assert.notEqual(schema.default, undefined, `${id} has no default`);
        assert.deepEqual(
          vscode.workspace.getConfiguration().inspect(id)?.defaultValue,
          schema.default,
          `${id}: default not registered`,
        );
      }
      assert.equal(props[Settings.baseUrl]?.default, 'https://api.consensus.app');
    });

    test('Restricted Mode is declared, restricting exactly the settings that route the key, choose where files are written, or filter searches', () => {
      const trust = manifest().capabilities?.untrustedWorkspaces;
      assert.equal(trust?.supported, 'limited');
      assert.deepEqual(
        sorted(trust?.restrictedConfigurations ?? []),
        sorted([...KEY_ROUTING_SETTINGS, ...WRITE_LOCATION_SETTINGS, ...TRUSTED_WORKSPACE_SETTINGS]),
      );
      const props = manifest().contributes.configuration.properties;
      for (const id of trust?.restrictedConfigurations ?? [])
        assert.ok(id in props, `restricted ${id} is not a setting`);
    });

    test('settings that decide what is spent are user-level (application or machine scope)', () => {
      const props = manifest().contributes.configuration.properties;
      for (const id of COST_SETTINGS)
        assert.ok(
          ['application', 'machine'].includes(props[id]?.scope ?? 'window'),
          `${id} has scope ${props[id]?.scope ?? 'window'}`,
        );
    });

    test('activation is lazy: no "*" and no explicit events beyond the implicit ones, the answer panel serializer and the writing languages', () => {
      const events = manifest().activationEvents ?? [];
      assert.ok(!events.includes('*'), 'activates on every start');
      assert.ok(!events.includes('onStartupFinished'), 'activates on every start');
      // Webview panels have no contribution point, so their serializer's event is explicit. Cite-key completion,
      // hover and links need the extension active in papers: LaTeX, Quarto, R Markdown, Typst, and a
      // workspace with a .bib or a Quarto project at its root; never for every Markdown file.
      assert.deepEqual(events, [
        `onWebviewPanel:${WebviewTypes.answer}`,
        'onLanguage:latex',
        'onLanguage:quarto',
        'onLanguage:rmd',
        'onLanguage:typst',
        'workspaceContains:*.bib',
        'workspaceContains:_quarto.yml',
      ]);
      assert.ok(!events.includes('onLanguage:markdown'), 'activates for every Markdown file');
      assert.equal(manifest().main, './dist/extension.js');
    });

    test('every %placeholder% in package.json has a text in package.nls.json', () => {
      const raw = readFileSync(join(extension().extensionPath, 'package.json'), 'utf8');
      const nls = readNls();
      const missing = [...raw.matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!).filter((k) => !(k in nls));
      assert.deepEqual(missing, []);
    });

    test('menus only reference declared commands', () => {
      const declared = new Set(manifest().contributes.commands.map((c) => c.command));
      for (const items of Object.values(manifest().contributes.menus ?? {})) {
        for (const item of items) assert.ok(declared.has(item.command), `menu item for undeclared ${item.command}`);
      }
    });
  });
}

function readNls(): Record<string, string> {
  return JSON.parse(readFileSync(join(extension().extensionPath, 'package.nls.json'), 'utf8')) as Record<
    string,
    string
  >;
}

function resolveNls(value: string, nls: Record<string, string>): string {
  const m = /^%(.+)%$/.exec(value);
  return m ? (nls[m[1]!] ?? value) : value;
}
