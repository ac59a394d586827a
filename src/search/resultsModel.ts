/**
 * What the search session shows, as the model states it: the results it hands over and the one method it needs
 * from whatever shows them. Types only, on the model's side, so the results tree (a view) depends on the session's
 * vocabulary and never the reverse.
 */
import type { Paper } from '../api/index';

export interface ResultsModel {
  query: string;
  /** The papers shown (a prefix of what was fetched), in rank order. */
  papers: readonly Paper[];
  /** Whether a Load More node follows the last paper. */
  more: boolean;
  /** Papers fetched so far (for the Load More node's note). */
  fetched: number;
  /** View description (query, count, filters). */
  description: string;
  /** Message above the tree (empty result, note), or undefined. */
  message?: string;
  /** The open_access filter was on: every result is open access. */
  openAccess?: boolean;
  /** Bumps on every new search, so node ids differ between searches. */
  generation: number;
}

/** Where the session's results go (the Research view's tree). */
export interface ResultsDisplay {
  /** Shows a new model; undefined clears it. */
  show(model: ResultsModel | undefined): void;
}
