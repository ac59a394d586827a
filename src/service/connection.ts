import * as vscode from 'vscode';
import type { ClientProvider } from './clientProvider';
import { Commands } from '../platform/ids';
import type { KeyStore } from './keyStore';
import type { Logger } from '../platform/logger';
import {
  describeError,
  networkCause,
  type ApiErrorKind,
  type ErrorAction,
  type ErrorPresenter,
} from '../platform/errorPresenter';

export type ConnectionOutcome = 'connected' | 'no_key' | 'bad_address' | ApiErrorKind | 'unexpected';

/** What Test Connection found; also what the command returns (tests read it). */
export interface ConnectionResult {
  ok: boolean;
  outcome: ConnectionOutcome;
  /** The one sentence shown to the user. */
  message: string;
  actions: ErrorAction[];
  /** Where the request went (the user-level base URL). */
  baseUrl: string;
  status?: number;
}

/**
 * Test Connection: lists one thread, a call that spends nothing from the monthly pool,
 * and reports success, 401, 402 or a network problem in one sentence each.
 */
export class ConnectionTester {
  constructor(
    private readonly clients: ClientProvider,
    private readonly keys: KeyStore,
    private readonly log: Logger,
    private readonly presenter: ErrorPresenter,
  ) {}

  async run(): Promise<ConnectionResult> {
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: vscode.l10n.t('Research Desk: testing the connection…'),
        cancellable: true,
      },
      (_progress, token) => this.check(token),
    );
    this.log.info(
      `Test Connection: ${result.outcome}${result.status ? ` (${result.status})` : ''} at ${result.baseUrl}.`,
    );
    if (result.outcome !== 'aborted') {
      this.presenter.present(result, result.ok ? 'info' : result.outcome === 'no_key' ? 'warning' : 'error', () =>
        vscode.commands.executeCommand(Commands.testConnection),
      );
    }
    return result;
  }

  /**
   * Checks `key` (not stored) the same way, spending nothing: Set API Key and Use the Local Emulator check a key before
   * they keep it.
   */
  async checkKey(key: string, token?: vscode.CancellationToken): Promise<ConnectionResult> {
    const one = this.clients.withKey(key);
    try {
      return await this.check(token, one);
    } finally {
      void one.client.close().catch(() => undefined);
    }
  }

  /** The check itself, without UI: with the stored key, or with the client given. */
  async check(
    token?: vscode.CancellationToken,
    given?: ReturnType<ClientProvider['withKey']>,
  ): Promise<ConnectionResult> {
    const { client, service } = given ?? this.clients.get();
    const baseUrl = service.baseUrl;
    if (service.problem) {
      return { ok: false, outcome: 'bad_address', message: service.problem, actions: ['openSettings'], baseUrl };
    }
    if (!given && !(await this.keys.get(service.origin))) {
      return {
        ok: false,
        outcome: 'no_key',
        message: vscode.l10n.t(
          'No API key is set for {0}: set one first, or get a key from the account dashboard.',
          baseUrl,
        ),
        actions: ['setApiKey', 'getKey'],
        baseUrl,
      };
    }
    const abort = new AbortController();
    const sub = token?.onCancellationRequested(() => abort.abort());
    try {
      await client.listThreads({ limit: 1, signal: abort.signal });
      return {
        ok: true,
        outcome: 'connected',
        message: vscode.l10n.t(
          'Connected to {0}: your API key works (checked by listing one thread, which spends none of your monthly calls).',
          baseUrl,
        ),
        actions: [],
        baseUrl,
      };
    } catch (err) {
      return this.failure(err, baseUrl, service.timeoutMs);
    } finally {
      sub?.dispose();
    }
  }

  private failure(err: unknown, baseUrl: string, timeoutMs: number): ConnectionResult {
    const report = describeError(err, { baseUrl, timeoutMs, canRetry: true });
    if (!report) {
      return {
        ok: false,
        outcome: 'aborted',
        message: vscode.l10n.t('Test Connection was cancelled.'),
        actions: [],
        baseUrl,
      };
    }
    const base = { ok: false, outcome: report.kind, status: report.status, actions: report.actions, baseUrl };
    switch (report.kind) {
      case 'unauthorized':
        return {
          ...base,
          message: vscode.l10n.t(
            '{0} rejected this API key (401): it is wrong or has been revoked, so set a new key.',
            baseUrl,
          ),
        };
      case 'payment_required':
        return {
          ...base,
          message: vscode.l10n.t(
            '{0} knows this key, but billing for the account is past due (402): calls are paused until payment is resolved in the dashboard.',
            baseUrl,
          ),
        };
      case 'network':
        return {
          ...base,
          message: vscode.l10n.t(
            'Could not reach {0} ({1}): check that the address is right and that the service (or the local emulator) is running.',
            baseUrl,
            networkCause(err),
          ),
        };
      default:
        return { ...base, message: report.message };
    }
  }
}
