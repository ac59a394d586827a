import * as vscode from 'vscode';
import { API_ERROR_KINDS, type ApiErrorKind } from '../api/errors';
import { Commands, Settings, Urls } from './ids';
import type { Logger } from './logger';
import { clip, errorLine, oneLine, plainText } from '../shared/plainText';
import { showError, showInfo, showWarning } from './notify';

export type { ApiErrorKind };

const KINDS: ReadonlySet<string> = new Set(API_ERROR_KINDS);

export interface ApiErrorLike {
  kind: ApiErrorKind;
  status?: number;
  message: string;
  resetDate?: string;
  /** The request failed after it may have reached the service: a search may have been charged, a thread created. */
  mayHaveTakenEffect?: boolean;
}

/** Duck-typed so it holds across bundles (no `instanceof` on a class from another bundle). */
export function isApiError(err: unknown): err is ApiErrorLike & Error {
  return err instanceof Error && KINDS.has((err as { kind?: unknown }).kind as string);
}

/** `retryMayCost`: Retry of a request that may already have been charged (its label says so). */
export type ErrorAction =
  'setApiKey' | 'getKey' | 'openBilling' | 'retry' | 'retryMayCost' | 'showLog' | 'openSettings';

export interface ErrorReport {
  /** `ApiErrorKind`, or 'unexpected' for anything else. */
  kind: ApiErrorKind | 'unexpected';
  status?: number;
  /** One actionable sentence, shown to the user. */
  message: string;
  actions: ErrorAction[];
}

export interface ErrorContext {
  /** The base URL the request went to. */
  baseUrl: string;
  timeoutMs?: number;
  /** Whether a retry callback exists (otherwise no Retry button). */
  canRetry?: boolean;
}

/**
 * Maps any error to one sentence and the buttons that help. `undefined` for a user abort. The sentence quotes
 * service text (a 422's fields and message, a cause), so it is returned as plain text: no link or icon syntax.
 */
export function describeError(err: unknown, ctx: ErrorContext): ErrorReport | undefined {
  const charged = isApiError(err) && err.mayHaveTakenEffect === true;
  const report = describe(err, { ...ctx, canRetry: ctx.canRetry && !charged });
  if (!report) return undefined;
  if (charged) {
    // Not retried automatically (the client sends such a request once): the writer decides, knowing the price.
    return {
      ...report,
      message: plainText(
        vscode.l10n.t(
          '{0} The request may have reached the service and may have been charged, so it was not sent again; Retry sends it once more and may cost a call.',
          report.message,
        ),
      ),
      actions: [...(ctx.canRetry ? (['retryMayCost'] as const) : []), ...report.actions],
    };
  }
  return { ...report, message: plainText(report.message) };
}

function describe(err: unknown, ctx: ErrorContext): ErrorReport | undefined {
  const retry: ErrorAction[] = ctx.canRetry ? ['retry'] : [];
  if (!isApiError(err)) {
    return {
      kind: 'unexpected',
      message: vscode.l10n.t('Research Desk hit an unexpected problem ({0}); the log has the details.', errorLine(err)),
      actions: [...retry, 'showLog'],
    };
  }
  const base = { kind: err.kind, status: err.status };
  const where = ctx.baseUrl;
  switch (err.kind) {
    case 'aborted':
      return undefined;
    case 'unauthorized':
      // Without a status nothing reached the service (no key, or one that cannot be read or sent): it refused
      // nothing, and saying so would send the writer looking for a problem with a key that was never tried.
      return {
        ...base,
        message:
          err.status === undefined
            ? vscode.l10n.t('No usable API key is set for {0}, so nothing was sent. Set your key.', where)
            : vscode.l10n.t(
                'The service at {0} rejected the API key (401): it is wrong or revoked, so set a valid key.',
                where,
              ),
        actions: ['setApiKey', 'getKey'],
      };
    case 'payment_required':
      return {
        ...base,
        message: vscode.l10n.t(
          'Billing for your account is past due (402), so the service pauses calls until payment is resolved in the dashboard.',
        ),
        actions: ['openBilling'],
      };
    case 'feature_not_allowed':
      return {
        ...base,
        message: vscode.l10n.t(
          'Your plan does not include this feature (403): full-text excerpts and deep research need a paid plan.',
        ),
        actions: ['openBilling'],
      };
    case 'not_found':
      return {
        ...base,
        message: vscode.l10n.t(
          'The service at {0} does not know this item (404); it may have been deleted, or the address may point at another service.',
          where,
        ),
        actions: ['showLog'],
      };
    case 'conflict':
      return {
        ...base,
        message: vscode.l10n.t(
          'The research agent is still answering the previous question (409); wait until it finishes, then send the follow-up.',
        ),
        actions: [...retry],
      };
    case 'validation':
      return {
        ...base,
        message: vscode.l10n.t('The service rejected the request as invalid (422): {0}', sentence(err.message)),
        actions: ['showLog'],
      };
    case 'rate_limited':
      return {
        ...base,
        message: vscode.l10n.t(
          'The service asked Research Desk to slow down (429, too many requests per second); try again in a moment.',
        ),
        actions: [...retry],
      };
    case 'quota_exhausted': {
      const resets = err.resetDate ?? /resets on (\d{4}-\d{2}-\d{2})/i.exec(err.message)?.[1];
      return {
        ...base,
        message: resets
          ? vscode.l10n.t(
              'You have used all included calls for this month (429); usage resets on {0}, or enable additional usage in the dashboard.',
              resets,
            )
          : vscode.l10n.t(
              'You have used all included calls for this month (429); usage resets on the 1st, or enable additional usage in the dashboard.',
            ),
        actions: ['openBilling'],
      };
    }
    case 'server':
      return {
        ...base,
        message: vscode.l10n.t(
          'The service at {0} had a problem of its own ({1}); try again in a moment.',
          where,
          err.status ?? '5xx',
        ),
        actions: [...retry, 'showLog'],
      };
    case 'network':
      return {
        ...base,
        message: vscode.l10n.t(
          'Could not reach {0} ({1}): check the address in the setting {2}, your proxy and your network.',
          where,
          networkCause(err),
          Settings.baseUrl,
        ),
        actions: [...retry, 'openSettings', 'showLog'],
      };
    case 'timeout':
      return {
        ...base,
        message: vscode.l10n.t(
          'The service at {0} did not answer within {1} seconds; check your network or proxy, then try again.',
          where,
          Math.round((ctx.timeoutMs ?? 30_000) / 1000),
        ),
        actions: [...retry, 'showLog'],
      };
    case 'invalid_response':
      return {
        ...base,
        message: vscode.l10n.t(
          'The service at {0} sent a response Research Desk does not understand; the log has the details.',
          where,
        ),
        actions: ['showLog'],
      };
  }
}

export function actionLabel(action: ErrorAction): string {
  switch (action) {
    case 'setApiKey':
      return vscode.l10n.t('Set API Key');
    case 'getKey':
      return vscode.l10n.t('Get a Key');
    case 'openBilling':
      return vscode.l10n.t('Open Billing');
    case 'retry':
      return vscode.l10n.t('Retry');
    case 'retryMayCost':
      return vscode.l10n.t('Retry (may cost a call)');
    case 'showLog':
      return vscode.l10n.t('Show Log');
    case 'openSettings':
      return vscode.l10n.t('Open Settings');
  }
}

export type Severity = 'error' | 'warning' | 'info';

/**
 * Shows reports as one sentence with buttons, and performs the chosen action. Never waits
 * for the user's choice (a command returns at once; the button acts later).
 */
export class ErrorPresenter {
  constructor(
    private readonly log: Logger,
    private readonly baseUrl: () => string,
  ) {}

  /** Logs the error, shows it, and returns what was shown (undefined for a user abort). */
  show(
    err: unknown,
    options: { retry?: () => unknown; context?: string; timeoutMs?: number } = {},
  ): ErrorReport | undefined {
    const report = describeError(err, {
      baseUrl: this.baseUrl(),
      timeoutMs: options.timeoutMs,
      canRetry: !!options.retry,
    });
    const prefix = options.context ? `${options.context}: ` : '';
    if (!report) {
      this.log.info(`${prefix}cancelled.`);
      return undefined;
    }
    this.log.error(`${prefix}${report.kind}${report.status ? ` ${report.status}` : ''}: ${errorLine(err)}`);
    if (err instanceof Error && !isApiError(err)) this.log.error(err);
    this.present(report, 'error', options.retry);
    return report;
  }

  /** Shows a report (or any sentence with actions) with the given severity. */
  present(report: Pick<ErrorReport, 'message' | 'actions'>, severity: Severity, retry?: () => unknown): void {
    const labels = report.actions.map(actionLabel);
    const message = this.log.redact(report.message);
    const shown =
      severity === 'error'
        ? showError(message, ...labels)
        : severity === 'warning'
          ? showWarning(message, ...labels)
          : showInfo(message, ...labels);
    shown.then(
      (choice) => {
        const action = report.actions.find((a) => actionLabel(a) === choice);
        if (action) void this.perform(action, retry);
      },
      () => undefined,
    );
  }

  async perform(action: ErrorAction, retry?: () => unknown): Promise<void> {
    try {
      switch (action) {
        case 'setApiKey':
          await vscode.commands.executeCommand(Commands.setApiKey);
          break;
        case 'getKey':
          await vscode.env.openExternal(vscode.Uri.parse(Urls.dashboard));
          break;
        case 'openBilling':
          await vscode.env.openExternal(vscode.Uri.parse(Urls.billing));
          break;
        case 'retry':
        case 'retryMayCost':
          await retry?.();
          break;
        case 'showLog':
          this.log.show();
          break;
        case 'openSettings':
          await vscode.commands.executeCommand('workbench.action.openSettings', Settings.section);
          break;
      }
    } catch (err) {
      this.log.error(`Action ${action} failed: ${errorLine(err)}`);
    }
  }
}

/** A short cause for a network failure: the system error code when there is one (ECONNREFUSED…). */
export function networkCause(err: unknown): string {
  const text = errorLine(err);
  const code = /\b(E[A-Z]{3,}|UND_ERR_[A-Z_]+)\b/.exec(text)?.[1];
  return code ?? clip(text.split(/[.!?](?:\s|$)/)[0] ?? text, 80);
}

function sentence(text: string): string {
  const t = clip(oneLine(text), 200);
  return /[.!?…]$/.test(t) ? t : `${t}.`;
}
