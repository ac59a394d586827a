import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { PaperActionResult } from '../../src/search/paperCommands';
import { Commands, Settings } from '../../src/platform/ids';
import type { SearchOutcome } from '../../src/search/searchSession';
import { escapeMarkdown } from '../../src/shared/markdown';
import { plainText } from '../../src/shared/plainText';
import type { ResultNode } from '../../src/search/resultsTree';
import {
  acceptQuickInput,
  api,
  control,
  emulatorUrl,
  eventually,
  setUserSettings,
  testCore,
  useEmulatorKeepingKey,
} from './support';

/** A query with 1,000 matches in the emulator's corpus (its own sample queries). */
const BIG = 'effect of formative feedback on mathematics performance in secondary school students';
const NOTHING = 'zzzzqqq xxyyzz';

interface EmuRequest {
  route: string;
  /** The parsed query string (a repeated parameter gives a list). */
  query: Record<string, string | string[]>;
  keyLabel: string | null;
  status: number;
  charged: number;
}
interface EmuCharge {
  keyLabel: string;
  calls: number;
}

let counter = 0;

/** A fresh key of its own (so its requests and charges are this test's only), stored for the emulator. */
async function freshKey(plan: string, extra: Record<string, unknown> = {}): Promise<{ label: string; key: string }> {
  const label = `search-test-${Date.now()}-${++counter}`;
  const key = await control<string>('provisionKey', { plan, label, ...extra });
  const desk = await api();
  const origin = new URL(await emulatorUrl()).origin;
  await desk.keys.set(key, origin);
  return { label, key };
}

async function searches(label: string): Promise<EmuRequest[]> {
  const all = await control<EmuRequest[]>('requests');
  return all.filter((r) => r.keyLabel === label && r.route === 'search');
}

/** One query parameter of a logged request. */
function param(r: EmuRequest | undefined, name: string): string | undefined {
  const v = r?.query[name];
  return Array.isArray(v) ? v.join(',') : v;
}

async function charged(label: string): Promise<number> {
  const all = await control<EmuCharge[]>('charges');
  return all.filter((c) => c.keyLabel === label).reduce((s, c) => s + c.calls, 0);
}

const run = <T>(id: string, ...args: unknown[]): Thenable<T | undefined> =>
  vscode.commands.executeCommand<T>(id, ...args);

async function roots(): Promise<ResultNode[]> {
  return (await api()).results.getChildren();
}

function paperNodes(nodes: ResultNode[]): Extract<ResultNode, { kind: 'paper' }>[] {
  return nodes.filter((n): n is Extract<ResultNode, { kind: 'paper' }> => n.kind === 'paper');
}

export function searchSuite(): void {
  suite('Search (real VS Code against the emulator)', () => {
    let restore: (() => Promise<void>) | undefined;

    suiteSetup(async () => {
      const s = await useEmulatorKeepingKey();
      const restoreCache = await setUserSettings({ [Settings.searchCacheMinutes]: 30 });
      restore = async () => {
        await restoreCache();
        await s.restore();
      };
    });

    suiteTeardown(async () => {
      await run(Commands.clearResults);
      await control('clearFaults');
      await restore?.();
    });

    test('Search Papers: one request of page_size 100 (one call), 20 papers shown with title, author/year/journal, study-type icon and Load More', async () => {
      const { label } = await freshKey('pro');
      const out = await run<SearchOutcome>(Commands.searchPapers, BIG);
      assert.equal(out?.outcome, 'shown', out?.message);
      assert.equal(out.shown, 20);
      assert.equal(out.fetched, 100);
      assert.equal(out.requests, 1);
      const sent = await searches(label);
      assert.equal(sent.length, 1);
      assert.equal(param(sent[0], 'page_size'), '100');
      assert.equal(param(sent[0], 'page'), '0');
      assert.equal(await charged(label), 1);

      const desk = await api();
      const nodes = await roots();
      const papers = paperNodes(nodes);
      assert.equal(papers.length, 20);
      assert.equal(nodes.at(-1)?.kind, 'more', 'no Load More node after the last result');
      const first = papers[0]!;
      const item = desk.results.getTreeItem(first);
      // Who and when lead the row (the description is cut first in a narrow sidebar); journal and design follow.
      const rowLabel = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
      const family = (first.paper.authors?.[0] ?? '').trim().split(/\s+/).at(-1) ?? '';
      assert.ok(rowLabel.startsWith(family), `label: ${rowLabel}`);
      assert.ok(rowLabel.includes(String(first.paper.publish_year)), `label: ${rowLabel}`);
      assert.ok(rowLabel.endsWith(plainText(first.paper.title)), `label: ${rowLabel}`);
      assert.ok(
        !first.paper.journal_name || String(item.description).startsWith(plainText(first.paper.journal_name)),
        `description: ${String(item.description)}`,
      );
      for (const p of papers) {
        const d = String(desk.results.getTreeItem(p).description);
        if (p.paper.study_type === 'rct') assert.match(d, /Randomized controlled trial/, d);
        if (p.paper.study_type) assert.ok(!d.endsWith(` ${p.paper.study_type}`) || p.paper.study_type === 'other', d);
      }
      assert.ok(item.iconPath instanceof vscode.ThemeIcon);
      const icons = new Set(papers.map((p) => (desk.results.getTreeItem(p).iconPath as vscode.ThemeIcon).id));
      for (const p of papers) {
        const id = (desk.results.getTreeItem(p).iconPath as vscode.ThemeIcon).id;
        if (p.paper.study_type === 'rct') assert.equal(id, 'beaker');
        if (p.paper.study_type === 'meta-analysis' || p.paper.study_type === 'systematic review')
          assert.equal(id, 'layers');
      }
      assert.ok(icons.size >= 1);
      const view = desk.results.treeView;
      assert.ok(view?.description?.includes(BIG.slice(0, 20)), `view description: ${view?.description}`);
      assert.match(view?.description ?? '', /20 shown/);
    });

    test('the tooltip: untrusted Markdown with takeaway, citations, quartile and what else is present; service text escaped', async () => {
      const desk = await api();
      const papers = paperNodes(await roots());
      assert.ok(papers.length > 0, 'run after the first search');
      for (const node of papers.slice(0, 5)) {
        const item = desk.results.resolveTreeItem(desk.results.getTreeItem(node), node);
        const tip = item.tooltip;
        assert.ok(tip instanceof vscode.MarkdownString);
        assert.equal(tip.isTrusted, false);
        assert.equal(tip.supportHtml, false);
        const p = node.paper;
        if (p.citation_count !== null && p.citation_count !== undefined)
          assert.match(tip.value, new RegExp(`Citations\\*\\*: ${p.citation_count}`));
        if (p.sjr_best_quartile) assert.ok(tip.value.includes(`Q${p.sjr_best_quartile}`));
        if (p.takeaway) assert.ok(tip.value.includes(escapeMarkdown(p.takeaway.split(' ')[0]!)), 'no takeaway');
        if (p.sample_size) assert.ok(tip.value.includes(`Sample size**: ${p.sample_size}`));
        if (p.institutions?.length) assert.ok(tip.value.includes('Institutions'));
        if (p.sample_size === null || p.sample_size === undefined)
          assert.ok(!tip.value.includes('Sample size'), 'an absent field shown');
        // Authors, year and journal as a reference reads, and the DOI.
        const one = (x: string): string => x.replace(/\s+/g, ' ').trim().slice(0, 30);
        const shown = tip.value.replace(/\\(.)/g, '$1').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
        if (p.authors?.[0]) assert.ok(shown.includes(one(p.authors[0])), `no first author: ${shown.slice(0, 300)}`);
        if (p.publish_year) assert.ok(shown.includes(`(${p.publish_year})`), 'no year');
        if (p.journal_name) assert.ok(shown.includes(one(p.journal_name)), `no journal: ${shown.slice(0, 600)}`);
        if (p.doi) assert.ok(shown.includes(one(p.doi)), 'no DOI');
      }
      // Hostile service text stays text.
      const hostile = {
        ...papers[0]!.paper,
        title: '[x](command:workbench.action.quit) <img src=x onerror=alert(1)>',
        takeaway: '**bold** `code`',
      };
      const tip = desk.results.resolveTreeItem(desk.results.getTreeItem({ ...papers[0]!, paper: hostile }), {
        ...papers[0]!,
        paper: hostile,
      }).tooltip as vscode.MarkdownString;
      assert.ok(!tip.value.includes('](command:'), tip.value);
      assert.ok(!tip.value.includes('<img'), tip.value);
    });

    test('Load More: 100 papers shown 20 at a time cost ONE call; the sixth step fetches page 1 of 100 (one more call)', async () => {
      const { label } = await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      for (let i = 2; i <= 5; i++) {
        const out = await run<SearchOutcome>(Commands.loadMore);
        assert.equal(out?.shown, i * 20);
        assert.equal(out.requests, 0, `Load More ${i} sent a request`);
      }
      assert.equal((await searches(label)).length, 1);
      assert.equal(await charged(label), 1, '100 results shown 20 at a time cost more than one call');
      assert.equal(paperNodes(await roots()).length, 100);

      const out = await run<SearchOutcome>(Commands.loadMore);
      assert.equal(out?.shown, 120);
      assert.equal(out.fetched, 200);
      assert.equal(out.requests, 1);
      const sent = await searches(label);
      assert.equal(sent.length, 2);
      assert.equal(param(sent[1], 'page'), '1');
      assert.equal(param(sent[1], 'page_size'), '100');
      assert.equal(await charged(label), 2);
      // Ranks continue: the 101st paper is not one of the first 100.
      const titles = paperNodes(await roots()).map((n) => n.paper.url);
      assert.equal(new Set(titles).size, 120, 'a paper repeats across pages');
    });

    test('the Load More node disappears at the 1,000-result limit (page 9 of 100 is the last requested)', async function () {
      this.timeout(60_000);
      const { label } = await freshKey('pro');
      let out = await run<SearchOutcome>(Commands.searchPapers, BIG);
      for (let i = 0; i < 60 && out?.more; i++) out = await run<SearchOutcome>(Commands.loadMore);
      assert.equal(out?.shown, 1000);
      assert.equal(out.more, false);
      assert.ok(!(await roots()).some((n) => n.kind === 'more'), 'a Load More node past 1,000 results');
      const sent = await searches(label);
      assert.equal(sent.length, 10);
      assert.ok(
        sent.every((r) => r.status === 200),
        'a request was refused',
      );
      assert.equal(await charged(label), 10);
    });

    test('an identical search is answered from the cache (no request); Refresh asks again (one call)', async () => {
      const { label } = await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      const again = await run<SearchOutcome>(Commands.searchPapers, `  ${BIG}  `);
      assert.equal(again?.outcome, 'shown');
      assert.equal(again.requests, 0);
      assert.equal((await searches(label)).length, 1, 'the repeat reached the service');
      const refreshed = await run<SearchOutcome>(Commands.refreshResults);
      assert.equal(refreshed?.outcome, 'shown');
      assert.equal(refreshed.requests, 1);
      assert.equal((await searches(label)).length, 2);
      assert.equal(await charged(label), 2);
    });

    test('with the cache set to 0 minutes, a repeat asks the service again', async () => {
      const { label } = await freshKey('pro');
      const restoreSetting = await setUserSettings({ [Settings.searchCacheMinutes]: 0 });
      try {
        await run<SearchOutcome>(Commands.searchPapers, 'sleep');
        await run<SearchOutcome>(Commands.searchPapers, 'sleep');
        assert.equal((await searches(label)).length, 2);
      } finally {
        await restoreSetting();
      }
    });

    test('every filter reaches the service', async () => {
      const { label } = await freshKey('pro');
      const filters = {
        year_min: 2010,
        year_max: 2024,
        month_min: 3,
        month_max: 9,
        study_types: ['rct', 'meta-analysis'],
        human: true,
        controlled: true,
        sample_size_min: 30,
        sjr_min: 1,
        sjr_max: 2,
        citation_min: 5,
        duration_min: 7,
        duration_max: 400,
        exclude_preprints: true,
        open_access: true,
        publisher_name: ['Elsevier', 'Springer'],
        domain: ['med', 'psych'],
        country: ['US', 'GB'],
        journal_name: 'Nutrients',
        clinical_guideline: false,
        medical_mode: true,
        include_semantic_score: true,
        include_full_text_chunks: true,
      };
      const out = await run<SearchOutcome>(Commands.searchPapers, { query: 'exercise', filters });
      assert.ok(out && (out.outcome === 'shown' || out.outcome === 'empty'), out?.message);
      const sent = await searches(label);
      assert.equal(sent.length, 1);
      const expect: Record<string, string> = {
        query: 'exercise',
        year_min: '2010',
        year_max: '2024',
        month_min: '3',
        month_max: '9',
        study_types: 'rct,meta-analysis',
        human: 'true',
        controlled: 'true',
        sample_size_min: '30',
        sjr_min: '1',
        sjr_max: '2',
        citation_min: '5',
        duration_min: '7',
        duration_max: '400',
        exclude_preprints: 'true',
        open_access: 'true',
        publisher_name: 'Elsevier,Springer',
        domain: 'med,psych',
        country: 'US,GB',
        journal_name: 'Nutrients',
        medical_mode: 'true',
        include_semantic_score: 'true',
        include_full_text_chunks: 'true',
        page: '0',
        page_size: '100',
      };
      for (const [k, v] of Object.entries(expect))
        assert.equal(param(sent[0], k), v, `${k} in ${JSON.stringify(sent[0]!.query)}`);
      assert.equal(sent[0]!.status, 200);
    });

    test('excerpts on a paid key: children of their paper (passage, section); semantic scores in the tooltip', async () => {
      await freshKey('pro');
      const out = await run<SearchOutcome>(Commands.searchPapers, {
        query: BIG,
        filters: { include_full_text_chunks: true, include_semantic_score: true },
      });
      assert.equal(out?.outcome, 'shown');
      const desk = await api();
      let found = 0;
      for (let i = 0; i < 5 && found === 0; i++) {
        for (const node of paperNodes(await roots())) {
          const kids = desk.results.getChildren(node);
          if (!kids.length) continue;
          found++;
          assert.equal(desk.results.getTreeItem(node).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
          const kid = kids[0]!;
          assert.equal(kid.kind, 'excerpt');
          const item = desk.results.getTreeItem(kid);
          const text = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
          assert.ok(text.length > 0);
          if (kid.kind === 'excerpt' && kid.section) assert.equal(item.description, kid.section);
          assert.ok(!text.startsWith('Section:'), 'the section prefix was not split off');
        }
        if (!found) await run<SearchOutcome>(Commands.loadMore);
      }
      assert.ok(found > 0, 'no paper carried excerpts');
      const first = paperNodes(await roots())[0]!;
      const tip = desk.results.resolveTreeItem(desk.results.getTreeItem(first), first).tooltip as vscode.MarkdownString;
      assert.match(tip.value, /Semantic score\*\*: 0\\\.\d{3}/);
    });

    test('free key: once the capped page size shows the plan, excerpts are never asked for; pages of 10', async () => {
      const { label } = await freshKey('free');
      const first = await run<SearchOutcome>(Commands.searchPapers, BIG);
      assert.equal(first?.outcome, 'shown');
      assert.equal(first.fetched, 10, 'free plan applies page_size 10');
      assert.equal(first.shown, 10);
      const out = await run<SearchOutcome>(Commands.searchPapers, {
        query: 'sleep quality',
        filters: { include_full_text_chunks: true },
      });
      assert.equal(out?.outcome, 'shown', out?.message);
      assert.match(out.message ?? '', /paid plan/);
      const sent = await searches(label);
      assert.equal(sent.length, 2);
      assert.ok(
        !sent.some((r) => param(r, 'include_full_text_chunks') === 'true'),
        'an excerpt request was sent on a free plan',
      );
      assert.equal(param(sent[1], 'page_size'), '10', 'asked for more than the plan gives');
      const desk = await api();
      for (const node of paperNodes(await roots())) assert.equal(desk.results.getChildren(node).length, 0);
      // Load More on free: the next page of 10 is page 1.
      const more = await run<SearchOutcome>(Commands.loadMore);
      assert.equal(more?.shown, 20);
      assert.equal(param((await searches(label))[2], 'page'), '1');
    });

    test('free key, plan not known yet: a 403 for excerpts costs nothing and the search runs again without them', async () => {
      const { label } = await freshKey('free');
      const out = await run<SearchOutcome>(Commands.searchPapers, {
        query: BIG,
        filters: { include_full_text_chunks: true },
      });
      assert.equal(out?.outcome, 'shown', out?.message);
      assert.match(out.message ?? '', /paid plan/);
      const sent = await searches(label);
      assert.deepEqual(
        sent.map((r) => r.status),
        [403, 200],
      );
      assert.equal(await charged(label), 1);
    });

    test('an empty result says so and suggests loosening the filters', async () => {
      await freshKey('pro');
      const out = await run<SearchOutcome>(Commands.searchPapers, { query: NOTHING, filters: { year_min: 2020 } });
      assert.equal(out?.outcome, 'empty');
      assert.match(out.message ?? '', /No papers match/);
      assert.match(out.message ?? '', /filters/);
      const desk = await api();
      assert.equal(desk.results.treeView?.message, out.message);
      assert.equal((await roots()).length, 0);
    });

    const errorCases: { name: string; setup: () => Promise<void>; expect: RegExp; kind: string }[] = [
      {
        name: 'revoked key → 401',
        setup: async () => void (await freshKey('pro', { status: 'revoked' })),
        expect: /401/,
        kind: 'unauthorized',
      },
      {
        name: 'billing past due → 402',
        setup: async () => void (await freshKey('pro', { status: 'pastDue' })),
        expect: /402/,
        kind: 'payment_required',
      },
      {
        name: 'monthly pool used up → 429 with the reset date',
        setup: async () => void (await freshKey('pro', { used: 500 })),
        expect: /month \(429\); usage resets on \d{4}-\d{2}-01/,
        kind: 'quota_exhausted',
      },
      {
        name: 'per-second limit → 429 slow down',
        setup: async () => {
          await freshKey('pro');
          await control('injectFault', { route: 'search', kind: 'status_before', status: 429, times: 3 });
        },
        expect: /slow down \(429/,
        kind: 'rate_limited',
      },
      {
        name: 'service failure → 5xx',
        setup: async () => {
          await freshKey('pro');
          await control('injectFault', { route: 'search', kind: 'status_before', status: 503, times: 3 });
        },
        expect: /problem of its own \(503\)/,
        kind: 'server',
      },
    ];
    for (const c of errorCases) {
      test(`error shown as its sentence: ${c.name}`, async function () {
        this.timeout(30_000);
        await c.setup();
        try {
          const out = await run<SearchOutcome>(Commands.searchPapers, `error case ${c.kind}`);
          assert.equal(out?.outcome, 'error');
          assert.equal(out.errorKind, c.kind);
          assert.match(out.message ?? '', c.expect);
        } finally {
          await control('clearFaults');
        }
      });
    }

    test('active filters apply to Search Papers and show in the view; a change marks the results until Refresh', async () => {
      const { label } = await freshKey('pro');
      const core = await testCore();
      try {
        await core.filters.set({ year_min: 2015, human: true });
        const out = await run<SearchOutcome>(Commands.searchPapers, 'sleep');
        assert.ok(out && out.outcome !== 'error', out?.message);
        const sent = await searches(label);
        assert.equal(param(sent[0], 'year_min'), '2015');
        assert.equal(param(sent[0], 'human'), 'true');
        const view = (await api()).results.treeView;
        const filters = core.filters.describe();
        assert.ok(filters.length > 0);
        assert.ok(view?.description?.includes(filters), `${view?.description} lacks ${filters}`);
        await core.filters.set({ year_min: 2018 });
        assert.match(view?.description ?? '', /filters changed/);
        assert.equal((await searches(label)).length, 1, 'a filter change spent a call by itself');
        const refreshed = await run<SearchOutcome>(Commands.refreshResults);
        assert.equal(refreshed?.requests, 1);
        assert.equal(param((await searches(label))[1], 'year_min'), '2018');
        assert.doesNotMatch(view?.description ?? '', /filters changed/);
      } finally {
        await core.filters.clear();
      }
    });

    test('a request that breaks a parameter rule is never sent: one sentence naming the field, no call', async () => {
      const { label } = await freshKey('pro');
      const out = await run<SearchOutcome>(Commands.searchPapers, { query: 'sleep', filters: { month_min: 3 } });
      assert.equal(out?.outcome, 'error');
      assert.equal(out.errorKind, 'validation');
      assert.match(out.message ?? '', /month_min/);
      assert.equal((await searches(label)).length, 0, 'an invalid request reached the service');
    });

    test('Show Abstract escapes hostile service text in the Markdown document', async () => {
      await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      const node = paperNodes(await roots())[0]!;
      const hostile = {
        ...node,
        paper: {
          ...node.paper,
          title: 'T [x](command:workbench.action.quit)',
          abstract: '<script>alert(1)</script> ![i](https://e.x/p.png) # not a heading',
          takeaway: 'Data at https://user:pass@evil.example/data and https://example.org/code.',
        },
      };
      const abs = await run<PaperActionResult>(Commands.showAbstract, hostile);
      const text = abs?.value ?? '';
      // Rendered as a preview, which links bare URLs itself: only the one the link rule allows may stay linkable.
      assert.ok(!/https:\/\/user/.test(text), text);
      assert.ok(text.includes('(<https://example.org/code>)'), text);
      assert.ok(!text.includes('](command:'), text);
      assert.ok(!text.includes('<script>'), text);
      assert.ok(!text.includes('![i]('), text);
      assert.match(text, /^# T \\\[x\\\]/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    test('Open Paper refuses a link that is not https; Open DOI says when there is no DOI (nothing opened)', async () => {
      await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      const node = paperNodes(await roots())[0]!;
      for (const url of [
        'javascript:alert(1)',
        'command:workbench.action.quit',
        'http://example.com/p',
        'file:///etc/passwd',
      ]) {
        const res = await run<PaperActionResult>(Commands.openPaper, { ...node, paper: { ...node.paper, url } });
        assert.equal(res?.done, false, url);
        assert.match(res.message ?? '', /no safe \(https\) link/);
      }
      const noDoi = await run<PaperActionResult>(Commands.openDoi, { ...node, paper: { ...node.paper, doi: null } });
      assert.equal(noDoi?.done, false);
      assert.match(noDoi.message ?? '', /no DOI/);
    });

    test('Open Paper refuses an https link that carries a user name or password, and says why (nothing opened)', async () => {
      await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      const node = paperNodes(await roots())[0]!;
      for (const url of [
        'https://user:pass@consensus.app/papers/x/1/',
        'https://consensus.app@evil.example/papers/x/1/',
        'https://@consensus.app/papers/x/1/',
      ]) {
        const res = await run<PaperActionResult>(Commands.openPaper, { ...node, paper: { ...node.paper, url } });
        assert.equal(res?.done, false, url);
        assert.equal(res.value, '', url);
        assert.match(res.message ?? '', /^This paper's link was not opened: it carries a user name or password/, url);
      }
      // Several papers: the count; nothing of a refused link (its password) in the sentence.
      const second = paperNodes(await roots())[1]!;
      const both = [
        { ...node, paper: { ...node.paper, url: 'https://user:secret@consensus.app/papers/x/1/' } },
        { ...second, paper: { ...second.paper, url: 'https://user:secret@consensus.app/papers/x/2/' } },
      ];
      const res = await run<PaperActionResult>(Commands.openPaper, both[0], both);
      assert.equal(res?.done, false);
      assert.match(res.message ?? '', /2 of the 2 papers have no safe \(https\) link/);
      assert.doesNotMatch(res.message ?? '', /secret/);
    });

    test('the tooltip makes a URL in service text a link only when the link rule allows it', async () => {
      const desk = await api();
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      const node = paperNodes(await roots())[0]!;
      const paper = {
        ...node.paper,
        title: 'Title http://evil.example/t',
        takeaway:
          'Data at https://user:pass@evil.example/x, code at https://Example.ORG/code. And javascript://%0Aalert(1) too.',
      };
      const tip = desk.results.resolveTreeItem(desk.results.getTreeItem({ ...node, paper }), { ...node, paper })
        .tooltip as vscode.MarkdownString;
      assert.equal(tip.isTrusted, false);
      const destinations = [...tip.value.matchAll(/\]\(<([^>]*)>\)/g)].map((m) => m[1]);
      assert.deepEqual(destinations, ['https://example.org/code'], tip.value);
      // Outside that link, no `scheme://` is left for VS Code's Markdown to turn into a link by itself.
      assert.doesNotMatch(tip.value.replace(/\]\(<[^>]*>\)/g, ''), /[a-z0-9]:\/\//i, tip.value);
    });

    test('a quota 429 names the reset date the emulator gives', async () => {
      const { key } = await freshKey('pro', { used: 500 });
      const usage = await control<{ resetsOn: string }>('getUsage', key);
      const out = await run<SearchOutcome>(Commands.searchPapers, 'quota check');
      assert.ok(out?.message?.includes(usage.resetsOn.slice(0, 10)), `${out?.message} vs ${usage.resetsOn}`);
    });

    test('a running search can be cancelled (Clear Results); nothing is shown', async function () {
      this.timeout(30_000);
      await freshKey('pro');
      await run(Commands.clearResults);
      await control('injectFault', { route: 'search', kind: 'delay', delayMs: 3000 });
      try {
        const pending = run<SearchOutcome>(Commands.searchPapers, 'cancel me please');
        await new Promise((r) => setTimeout(r, 400));
        await run(Commands.clearResults);
        const out = await pending;
        assert.equal(out?.outcome, 'cancelled');
        assert.equal((await roots()).length, 0);
      } finally {
        await control('clearFaults');
      }
    });

    test('Search Selection: the editor selection (whitespace collapsed) becomes the query', async () => {
      const { label } = await freshKey('pro');
      const doc = await vscode.workspace.openTextDocument({
        content: 'Draft.\nWe think   formative\n  feedback helps mathematics.\nEnd.',
        language: 'markdown',
      });
      const editor = await vscode.window.showTextDocument(doc);
      editor.selection = new vscode.Selection(1, 8, 2, 28);
      const out = await run<SearchOutcome>(Commands.searchSelection);
      assert.equal(out?.query, 'formative feedback helps mathematics');
      const sent = await searches(label);
      assert.equal(param(sent[0], 'query'), 'formative feedback helps mathematics');
      // An over-long selection is cut at a word, with a note.
      const long = await vscode.workspace.openTextDocument({ content: 'feedback '.repeat(100), language: 'markdown' });
      const ed2 = await vscode.window.showTextDocument(long);
      ed2.selection = new vscode.Selection(0, 0, 0, 900);
      const cut = await run<SearchOutcome>(Commands.searchSelection);
      assert.ok((cut?.query?.length ?? 999) <= 300);
      assert.match(cut?.message ?? '', /first 300 characters/);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });

    test('Search Papers without an argument: a Quick Pick offering recent queries (accepting the first runs it)', async () => {
      const { label } = await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, 'remote work panic disorder');
      const out = await acceptQuickInput(run<SearchOutcome>(Commands.searchPapers));
      assert.equal(out?.query, 'remote work panic disorder');
      assert.equal(out.requests, 0, 'the repeat should come from the cache');
      assert.equal((await searches(label)).length, 1);
    });

    test('paper actions: Copy Title, Copy DOI (several selected), Show Abstract (escaped Markdown), Find Similar', async () => {
      await freshKey('pro');
      await run<SearchOutcome>(Commands.searchPapers, BIG);
      const papers = paperNodes(await roots());
      const [a, b] = [papers[0]!, papers[1]!];
      const title = await run<PaperActionResult>(Commands.copyTitle, a);
      assert.equal(title?.value, a.paper.title?.replace(/\s+/g, ' ').trim());
      assert.equal(await vscode.env.clipboard.readText(), title?.value);
      const withDoi = papers.filter((p) => p.paper.doi).slice(0, 2);
      const dois = await run<PaperActionResult>(Commands.copyDoi, withDoi[0], withDoi);
      assert.equal(dois?.value, withDoi.map((p) => p.paper.doi).join('\n'));
      const abs = await run<PaperActionResult>(Commands.showAbstract, b);
      assert.ok(abs?.done);
      const text = abs.value ?? '';
      assert.ok(text.startsWith('# '));
      assert.ok(text.includes('## Abstract'));
      // A rendered preview whose tab is named after the paper, over the Markdown document.
      const shown = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'research-desk-paper');
      assert.equal(shown?.languageId, 'markdown');
      const words = (b.paper.title ?? '').replace(/\s+/g, ' ').trim().split(' ').slice(0, 3).join(' ');
      const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
      await eventually(
        () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.label.includes(words))),
        `a tab named after the paper (tabs: ${tabs.join(' | ')})`,
      );
      assert.ok(!tabs.some((t) => /^[0-9a-f]{32}\.md$/.test(t)), 'no tab named by the paper id');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const similar = await run<SearchOutcome>(Commands.findSimilar, b);
      assert.equal(similar?.query, b.paper.title?.replace(/\s+/g, ' ').trim());
    });
  });
}
