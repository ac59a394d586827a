/**
 * The frame of every webview page (the answer view, the evidence table): a Content-Security-Policy that allows no
 * script but the page's one bundle under a fresh nonce, and styles, images and fonts only from the extension; the
 * stylesheet; the title; the body as given (each page escapes its own text).
 */
import { randomBytes } from 'crypto';
import * as vscode from 'vscode';
import { escapeHtml } from '../render/escape';

export interface WebviewPageParts {
  webview: vscode.Webview;
  extensionUri: vscode.Uri;
  nonce: string;
  /** media/<stylesheet> */
  stylesheet: string;
  /** dist/<script>, or none (a page with nothing to run). */
  script: string | undefined;
  title: string;
  body: string;
}

export function webviewPage(p: WebviewPageParts): string {
  const css = p.webview.asWebviewUri(vscode.Uri.joinPath(p.extensionUri, 'media', p.stylesheet));
  const src = p.webview.cspSource;
  const csp = `default-src 'none'; img-src ${src}; style-src ${src}; script-src 'nonce-${p.nonce}'; font-src ${src}`;
  const script = p.script
    ? `<script nonce="${p.nonce}" src="${p.webview.asWebviewUri(vscode.Uri.joinPath(p.extensionUri, 'dist', p.script)).toString()}"></script>`
    : '';
  return `<!DOCTYPE html>
<html lang="${escapeHtml(vscode.env.language)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${css.toString()}">
<title>${escapeHtml(p.title)}</title>
</head>
<body>
${p.body}
${script}
</body>
</html>`;
}

/** A nonce for the page's Content-Security-Policy (letters and digits, from 18 random bytes). */
export function randomNonce(): string {
  return randomBytes(18)
    .toString('base64')
    .replace(/[^A-Za-z0-9]/g, '');
}
