/**
 * Entry of dist/deferred.js: what the entry bundle runs after activation rather than during it, `require`d on first
 * use (by the work activation schedules for right after it returns, or by a view's first row). Activation compiles
 * only what registering needs; this is the rest of the entry bundle's side: the views' rows, the icon legend, Search
 * Papers' Quick Pick when it is the first command, the cite providers, the demo-key hand-off and the monthly-calls
 * item restored at start. Nothing of the core (dist/core.js).
 */
export { resultTreeItem, resolveResultTreeItem, excerptNodes } from '../search/resultItems';
export { threadTreeItem, resolveThreadTreeItem } from '../threads/threadItems';
export { showIconLegend } from '../search/legend';
export { askSearchQuery, recentQueries } from '../search/queryPick';
export { registerCiteProviders, warmFirstList } from '../citations/providers';
export { applyDemoKey } from '../service/demoKey';
export { restoreUsageStatusItem } from '../usage/statusCache';
export { readRunning } from '../threads/persisted';
