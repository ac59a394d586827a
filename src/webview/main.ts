// Answer webview script (browser bundle). Filled in by the answer-view issue.
export {};
