/**
 * The evidence table's HTML, built on the host: a Content-Security-Policy with a fresh nonce per page, the one
 * external script (dist/table.js) and stylesheet, and the static parts (filters, actions, the table's head) with
 * every text through `escapeHtml`. The rows are not here: the script writes them from the host's message with
 * `textContent`.
 */
import * as vscode from 'vscode';
import { escapeHtml } from '../../render/escape';
import { webviewPage } from '../../platform/webviewPage';
import { COLUMNS, type ColumnId } from './rows';
import type { TableInit } from './protocol';
import type { SortSpec } from './sortFilter';

const t = (s: string, ...args: (string | number)[]): string => vscode.l10n.t(s, ...args);

/** Every text the script shows, translated here (the webview has no l10n of its own). */
function labels(): Record<string, string> {
  return {
    untitled: t('(untitled paper)'),
    notReported: t('not reported'),
    selectRow: t('Select'),
    selectedNone: t('No papers selected'),
    selectedOne: t('1 paper selected'),
    selectedMany: t('{0} papers selected'),
    shownOne: t('1 paper'),
    shownMany: t('{0} papers'),
    filteredOne: t('{0} of 1 paper shown'),
    filteredMany: t('{0} of {1} papers shown'),
    sortedAscending: t('Sorted by {0}, ascending.'),
    sortedDescending: t('Sorted by {0}, descending.'),
    sortedRank: t('In the order of the search results.'),
    noMatch: t('No paper matches the filters.'),
  };
}

function columns(): TableInit['columns'] {
  const names: Record<ColumnId, [string, string?]> = {
    rank: [t('#'), t('Rank in the search results')],
    title: [t('Title')],
    firstAuthor: [t('First author')],
    year: [t('Year')],
    journal: [t('Journal')],
    studyType: [t('Study type')],
    sampleSize: [t('Sample size')],
    population: [t('Population')],
    duration: [t('Duration')],
    quartile: [t('Quartile'), t('The journal’s best SJR quartile (Q1 is the best)')],
    citations: [t('Citations')],
    openAccess: [
      t('Open access'),
      t('Known when the search asked for open access only or the paper has full-text excerpts; otherwise not reported'),
    ],
    preprint: [t('Preprint')],
    takeaway: [t('Takeaway')],
  };
  return COLUMNS.map((id) => ({ id, label: names[id][0], description: names[id][1] }));
}

/** The table's body: toolbar, filters, actions, the table's head, and the initial data for the script. */
export function tableBody(o: { hidden: readonly ColumnId[]; sort: SortSpec | null }): string {
  const e = escapeHtml;
  const cols = columns();
  const init: TableInit = {
    labels: labels(),
    columns: cols,
    hidden: [...o.hidden],
    sort: o.sort,
    language: vscode.env.language,
  };
  const hideClasses = o.hidden.map((c) => `hide-${c}`).join(' ');
  const head = cols
    .map(
      (c) =>
        `<th scope="col" class="c-${c.id}" aria-sort="none"><button type="button" class="sort" data-col="${c.id}" tabindex="-1"${c.description ? ` title="${e(c.description)}"` : ''}>${e(c.label)}<span class="sort-mark" aria-hidden="true"></span></button></th>`,
    )
    .join('');
  const colgroup = cols.map((c) => `<col class="c-${c.id}">`).join('');
  const columnChoices = cols
    .filter((c) => c.id !== 'title')
    .map(
      (c) =>
        `<label><input type="checkbox" data-col="${c.id}"${o.hidden.includes(c.id) ? '' : ' checked'}> ${e(c.label === '#' ? (c.description ?? c.label) : c.label)}</label>`,
    )
    .join('');
  const option = (value: string, label: string): string => `<option value="${value}">${e(label)}</option>`;
  return `<header class="top">
<h1 id="caption">${e(t('Evidence Table'))}</h1>
<p id="status" role="status" aria-live="polite"></p>
<div class="filters" role="search" aria-label="${e(t('Filter the loaded papers (no call is spent)'))}">
<label class="grow">${e(t('Filter'))} <input type="search" id="f-text" placeholder="${e(t('Words in any column'))}" autocomplete="off"></label>
<label>${e(t('Study type'))} <select id="f-type"><option value="">${e(t('Any'))}</option></select></label>
<label>${e(t('From year'))} <input type="number" id="f-year" min="1000" max="9999" inputmode="numeric"></label>
<label>${e(t('Smallest sample'))} <input type="number" id="f-sample" min="1" inputmode="numeric"></label>
<label class="check"><input type="checkbox" id="f-peer"> ${e(t('Peer-reviewed only'))}</label>
<button type="button" id="f-clear" class="secondary">${e(t('Clear Filters'))}</button>
<details id="columns"><summary>${e(t('Columns'))}</summary><div class="column-choices">${columnChoices}</div></details>
<details id="keys"><summary>${e(t('Keyboard'))}</summary><p class="help" id="help">${e(t('Arrow keys move between cells, Space selects a row, Shift+Space or Shift+arrow selects a range, Ctrl+A selects every shown paper, Escape clears the selection, Enter opens the paper, a header sorts.'))}</p></details>
</div>
<div class="actions" role="toolbar" aria-label="${e(t('Selected papers'))}">
<span id="selection" aria-live="polite"></span>
<button type="button" id="a-insertCitation" disabled>${e(t('Insert Citation'))}</button>
<button type="button" id="a-copyBibtex" class="secondary" disabled>${e(t('Copy BibTeX'))}</button>
<button type="button" id="a-askAgent" class="secondary" disabled>${e(t('Ask the Research Agent'))}</button>
<label class="export">${e(t('Export as'))} <select id="export-format">${option('bibtex', 'BibTeX')}${option('ris', 'RIS')}${option('csl-json', 'CSL-JSON')}</select></label>
<button type="button" id="a-export" class="secondary" disabled>${e(t('Export…'))}</button>
</div>
</header>
<main id="table-root" data-init="${e(JSON.stringify(init))}">
<p id="empty" role="status" hidden></p>
<div class="scroll" id="scroll">
<table id="grid" role="grid" aria-multiselectable="true" aria-labelledby="caption" aria-describedby="help" class="${hideClasses}">
<colgroup><col class="c-select">${colgroup}</colgroup>
<thead><tr role="row" aria-rowindex="1"><th scope="col" class="c-select"><input type="checkbox" id="select-all" tabindex="-1" aria-label="${e(t('Select every shown paper'))}"></th>${head}</tr></thead>
<tbody id="rows"></tbody>
</table>
</div>
<div class="more" id="more" hidden><button type="button" id="load-more" class="secondary">${e(t('Load More Results'))}</button></div>
<div class="more" id="search" hidden><button type="button" id="search-papers">${e(t('Search Papers'))}</button></div>
</main>`;
}

/** The whole page. */
export function tablePage(webview: vscode.Webview, extensionUri: vscode.Uri, nonce: string, body: string): string {
  return webviewPage({
    webview,
    extensionUri,
    nonce,
    stylesheet: 'table.css',
    script: 'table.js',
    title: t('Evidence Table'),
    body,
  });
}
