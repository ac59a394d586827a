/**
 * The oracle for "no clickable link": VS Code's own parser for links in notifications and quick-input prompts
 * (src/vs/base/common/linkedText.ts, MIT), `[label](https://…|command:…|file:…)`, case-insensitive. Shared by the
 * plain-Node and extension-host suites, so every test asks the question the workbench asks.
 */
export const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

/** The links VS Code would render in `text`. */
export const linksIn = (text: string): string[] => [...text.matchAll(VSCODE_LINK)].map((m) => m[0]);
