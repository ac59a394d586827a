/**
 * Every notification and status-bar message Research Desk shows goes through here. VS Code renders
 * `[label](command:…)` in a notification as a link that runs the command, and `$(name)` in status-bar text as an
 * icon; the messages carry service text (error messages, thread titles) and setting values (preset names), so each
 * one is made plain by `plainText` at this one place rather than at every caller.
 */
import * as vscode from 'vscode';
import { plainText } from '../shared/plainText';

export function showError(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showErrorMessage(plainText(message), ...items);
}

export function showWarning(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(plainText(message), ...items);
}

export function showInfo(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showInformationMessage(plainText(message), ...items);
}

/** A transient status-bar message (its text draws `$(icon)`s, so service text in it is made plain too). */
export function statusMessage(text: string, hideAfterMs: number): vscode.Disposable {
  return vscode.window.setStatusBarMessage(plainText(text), hideAfterMs);
}
