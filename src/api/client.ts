/**
 * `createClient`: the resource methods of the service on top of one request pipeline
 * (validate → read key → schedule → send → parse, with safe retries), plus POST reconciliation
 * for thread creation and follow-ups and `waitForThread` polling.
 */
import type * as z from 'zod/mini';
import { callsForSearch } from './budget';
import { ApiError, errorFromResponse, isApiError, scrubError, throwIfInvalid } from './errors';
import { listQueryString, searchQueryString, threadQueryString, threadRequestJson } from './serialize';
import {
  validateInteractionId,
  validateListParams,
  validateSearchParams,
  validateThreadId,
  validateThreadRequest,
  type SearchParams,
} from './params';
import {
  confirmCreatedThread,
  matchCreatedThread,
  matchNewInteraction,
  tryRead,
  uncertain,
  type Outcome,
} from './reconcile';
import { backoffMs, parseRetryAfter, shouldRetry } from './retry';
import { realClock, Scheduler, type Priority, type RateClass } from './scheduler';
import {
  defaultMaxWaitSeconds,
  DEFAULT_POLL_AFTER_SECONDS,
  paperGaps,
  parseBody,
  parseSearchResponse,
  SearchResponseSchema,
  ThreadDispatchSchema,
  ThreadListSchema,
  ThreadSchema,
  type Interaction,
  type SearchResponse,
  type Thread,
  type ThreadDispatch,
  type ThreadList,
} from './schemas';
import { TRANSIENT, waitForThread } from './polling';
import { Transport, type RawResponse } from './transport';
import type { Client, ClientOptions, GetThreadOptions, ListThreadsOptions, Logger } from './clientContract';
import { QUICK_SEARCH_REMOVAL_DATE, type ThreadMode } from './vocab';

interface Call<S extends z.ZodMiniType> {
  method: 'GET' | 'POST';
  /** Parser used instead of `parseBody(schema, …)` (the search hot path). */
  parse?: (body: unknown, where: string) => z.output<S>;
  path: string;
  query?: string;
  body?: string;
  cls: RateClass;
  priority?: Priority;
  schema: S;
  signal: AbortSignal | undefined;
  /** Extra text for the log line of a success (e.g. calls charged). */
  note?: (data: z.output<S>) => string;
  /** Charged by the service (a search): retried only when it provably never reached it. */
  billable?: boolean;
}

/** Said of a search that failed after it may have been charged: the writer decides whether to try again. */
const MAY_HAVE_COST =
  'The search may already have been charged (a call from the monthly pool): searching again may cost another call.';

export function createClient(options: ClientOptions): Client {
  const transport = new Transport({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? 30_000,
    proxy: options.proxy,
    dispatcher: options.dispatcher,
    userAgent: options.userAgent,
  });
  const clock = options.clock ?? realClock;
  const now = options.now ?? (() => new Date());
  const scheduler = new Scheduler(options.rateLimits, clock);
  // Call through the given object (a LogOutputChannel keeps its methods on the prototype, so no spreading).
  const sink = options.logger;
  const log: Logger = {
    debug: (m) => sink?.debug?.(m),
    info: (m) => sink?.info?.(m),
    warn: (m) => sink?.warn?.(m),
    error: (m) => sink?.error?.(m),
  };
  const maxRetries = options.maxRetries ?? 2;
  /** Polling hints last seen from the service per mode (used for reconciled dispatches). */
  const hints: Partial<Record<ThreadMode, { poll: number; maxWait: number }>> = {};
  let warnedQuickSearch = false;

  async function readKey(): Promise<string> {
    let key: string | undefined;
    try {
      key = typeof options.apiKey === 'function' ? await options.apiKey() : options.apiKey;
    } catch {
      throw new ApiError('unauthorized', 'The API key could not be read from secure storage. Set the key again.');
    }
    key = key?.trim();
    if (!key)
      throw new ApiError(
        'unauthorized',
        'No API key is set. Add your key before calling the service (nothing was sent).',
      );
    if (!/^[\x21-\x7e]+$/.test(key))
      throw new ApiError(
        'unauthorized',
        'The API key contains characters that cannot be sent in a header. Paste the key again.',
      );
    return key;
  }

  function toApiError(e: unknown, c: Call<z.ZodMiniType>, where: string): ApiError {
    if (isApiError(e)) return e;
    if (c.signal?.aborted) return new ApiError('aborted', `The request ${where} was cancelled before it was sent.`);
    // Not an error of the transport (which names every failure): nothing says the request stayed here.
    return new ApiError('network', `The request ${where} failed.`, {
      mayHaveTakenEffect: c.method === 'POST' || !!c.billable,
    });
  }

  /** The answer as data, or the error it stands for (a non-2xx, or a 2xx that cannot be read). */
  function answer<S extends z.ZodMiniType>(
    c: Call<S>,
    res: RawResponse,
    where: string,
    key: string,
  ): z.output<S> | ApiError {
    if (res.status >= 200 && res.status < 300) {
      // The status is kept: a thread POST that was accepted but is unreadable gets reconciled.
      if (res.unreadable)
        return new ApiError('invalid_response', `The service's answer to ${where} is unusable: ${res.unreadable}.`, {
          status: res.status,
        });
      if (res.notJson)
        return new ApiError('invalid_response', `The service's answer to ${where} was not JSON.`, {
          status: res.status,
        });
      try {
        return c.parse ? c.parse(res.body, where) : parseBody(c.schema, res.body, where);
      } catch (e) {
        if (isApiError(e)) return new ApiError(e.kind, e.message, { status: res.status });
        throw e;
      }
    }
    return errorFromResponse(res.status, res.body, {
      method: c.method,
      path: c.path,
      retryAfterSeconds: parseRetryAfter(res.headers['retry-after']),
      secret: key,
      unreadable: res.unreadable,
    });
  }

  async function call<S extends z.ZodMiniType>(c: Call<S>): Promise<z.output<S>> {
    const where = `${c.method} ${c.path}`;
    const target = c.query ? `${c.path}?${c.query}` : c.path;
    const shown = target.length > 400 ? `${target.slice(0, 399)}…` : target;
    if (c.signal?.aborted) throw new ApiError('aborted', `The request ${where} was cancelled before it was sent.`);
    const key = await readKey();
    const headers: Record<string, string> =
      options.authScheme === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
    if (c.body !== undefined) headers['content-type'] = 'application/json';
    const effectful = c.method === 'POST' || !!c.billable;

    for (let retries = 0; ; retries++) {
      let error: ApiError;
      let started = clock.now();
      try {
        if (scheduler.intervalOf(c.cls)) await scheduler.acquire(c.cls, c.priority, c.signal);
        started = clock.now();
        const res = await transport
          .send({
            method: c.method,
            path: c.path,
            query: c.query ?? '',
            headers,
            body: c.body,
            signal: c.signal,
            secret: key,
            effectful,
          })
          .finally(() => scheduler.done(c.cls));
        const ms = Math.round(clock.now() - started);
        let out: z.output<S> | ApiError;
        try {
          out = answer(c, res, where, key);
        } catch {
          // Anything unexpected while reading an answer is the answer's fault: never a network
          // error, never retried.
          out = new ApiError(
            'invalid_response',
            `The service's answer to ${where} (HTTP ${res.status}) could not be read.`,
            { status: res.status },
          );
        }
        if (!isApiError(out)) {
          if (sink)
            log[c.cls === 'search' ? 'info' : 'debug'](
              `${c.method} ${shown} ${res.status} ${ms}ms${c.note ? c.note(out) : ''}`,
            );
          return out;
        }
        error = out;
        // The service saw it: after a 5xx or an unusable answer it may have created or charged something.
        if (effectful && (error.kind === 'server' || error.kind === 'invalid_response'))
          error = new ApiError(error.kind, error.message, { ...error, mayHaveTakenEffect: true });
      } catch (e) {
        error = toApiError(e, c, where);
      }
      if (c.billable && error.mayHaveTakenEffect)
        error = new ApiError(error.kind, `${error.message.replace(/\.?$/, '.')} ${MAY_HAVE_COST}`, { ...error });
      error = scrubError(error, key);
      const ms = Math.round(clock.now() - started);
      const retry = shouldRetry(c, error, retries, maxRetries);
      log[retry ? 'info' : 'warn'](
        `${c.method} ${shown} ${error.status ?? error.kind} ${ms}ms${retry ? ` (retry ${retries + 1})` : ''}`,
      );
      if (!retry) throw error;
      try {
        await clock.sleep(backoffMs(retries, error.retryAfterSeconds, options.random), c.signal);
      } catch {
        throw new ApiError('aborted', `The request ${where} was cancelled while waiting to retry.`);
      }
    }
  }

  async function doSearch(path: string, params: SearchParams, signal?: AbortSignal): Promise<SearchResponse> {
    throwIfInvalid(validateSearchParams(params));
    const data = await call({
      method: 'GET',
      path,
      query: searchQueryString(params),
      cls: 'search',
      schema: SearchResponseSchema,
      parse: parseSearchResponse,
      signal,
      billable: true,
      note: (d) => ` results=${d.results.length} charged=${callsForSearch(d.results.length)}`,
    });
    const gaps = options.logger ? paperGaps(data.results) : undefined;
    if (gaps?.size)
      log.debug(
        `${path}: results lack spec-required fields (passed through): ${[...gaps].map(([f, n]) => `${f} ×${n}`).join(', ')}`,
      );
    return data;
  }

  async function getThread(threadId: string, o: GetThreadOptions & { priority?: Priority } = {}): Promise<Thread> {
    throwIfInvalid([...validateThreadId(threadId), ...validateInteractionId(o.interactionId)]);
    return call({
      method: 'GET',
      path: `/v1/threads/${threadId}`,
      query: threadQueryString(o),
      cls: 'poll',
      priority: o.priority ?? 'foreground',
      schema: ThreadSchema,
      signal: o.signal,
    });
  }

  async function listThreads(o: ListThreadsOptions = {}): Promise<ThreadList> {
    const params = { query: o.query, limit: o.limit, offset: o.offset };
    throwIfInvalid(validateListParams(params));
    return call({
      method: 'GET',
      path: '/v1/threads',
      query: listQueryString(params),
      cls: 'list',
      schema: ThreadListSchema,
      signal: o.signal,
    });
  }

  function remember(d: ThreadDispatch): ThreadDispatch {
    hints[d.mode] = { poll: d.poll_after_seconds, maxWait: d.max_wait_seconds };
    return d;
  }

  function reconciledDispatch(thread: Thread, i: Interaction, mode: ThreadMode | undefined): ThreadDispatch {
    const m: ThreadMode = i.mode ?? mode ?? 'pro';
    const anyPoll = hints[m]?.poll ?? hints.pro?.poll ?? hints.deep?.poll;
    return {
      thread_id: thread.thread_id,
      interaction_id: i.interaction_id,
      status: i.status,
      mode: m,
      url: thread.url,
      poll_after_seconds: anyPoll ?? DEFAULT_POLL_AFTER_SECONDS,
      max_wait_seconds: hints[m]?.maxWait ?? defaultMaxWaitSeconds(m),
      created_at: null,
      title: thread.title,
      reconciled: true,
    };
  }

  /** Send a thread POST; on an ambiguous failure reconcile, retry once only when positively not created. */
  async function postWithReconcile(
    what: string,
    send: () => Promise<ThreadDispatch>,
    reconcile: (startedAt: number) => Promise<Outcome<ThreadDispatch>>,
    threadId?: string,
  ): Promise<ThreadDispatch> {
    for (let attempt = 0; ; attempt++) {
      const startedAt = now().getTime();
      try {
        return remember(await send());
      } catch (e) {
        // Only a failure after which the POST may have reached the service is reconciled (a
        // cancelled one is not: the writer asked to stop, not for more requests).
        if (!isApiError(e) || !e.mayHaveTakenEffect || e.kind === 'aborted') throw e;
        // A 2xx whose body could not be read did take effect: find it, but never send again.
        const acceptedUnreadable =
          e.kind === 'invalid_response' && e.status !== undefined && e.status >= 200 && e.status < 300;
        log.warn(
          `${what}: ${e.kind}${e.status ? ` ${e.status}` : ''}; checking whether it took effect before anything else`,
        );
        const outcome = await reconcile(startedAt);
        if (outcome.kind === 'found') {
          log.info(
            `${what}: it had taken effect (thread ${outcome.value.thread_id}); returning it instead of sending again`,
          );
          return outcome.value;
        }
        // Only a request the service has answered (a 5xx) can be over: after a timeout or a
        // dropped connection it may still be in flight and land after the check, so "not
        // listed yet" is no proof it never will be, and sending again could duplicate it.
        const answered = e.kind === 'server' && e.status !== undefined;
        if (outcome.kind === 'absent' && attempt === 0 && answered) {
          log.info(`${what}: positively not created; sending once more`);
          continue;
        }
        const reason =
          outcome.kind !== 'absent'
            ? outcome.reason
            : acceptedUnreadable
              ? 'the service accepted it but it is not listed yet'
              : !answered
                ? 'the request may still be in flight, so it is not sent again'
                : 'the one retry failed too';
        throw uncertain(what, e, reason, threadId);
      }
    }
  }

  const client: Client = {
    search: (params, o = {}) => doSearch('/v1/search', params, o.signal),

    quickSearch(params, o = {}) {
      if (!warnedQuickSearch) {
        warnedQuickSearch = true;
        log.warn(
          `quickSearch uses GET /v1/quick_search, which is deprecated and removed on ${QUICK_SEARCH_REMOVAL_DATE}; use search (GET /v1/search) instead.`,
        );
      }
      return doSearch('/v1/quick_search', params, o.signal);
    },

    async createThread(body, o = {}) {
      throwIfInvalid(validateThreadRequest(body));
      const json = JSON.stringify(threadRequestJson(body));
      const signal = o.signal;
      // Snapshot first (listing is free of the monthly pool): after an ambiguous failure, a thread id
      // that was not listed before is the evidence of creation, whatever title the service gave it.
      const before = await tryRead(() => listThreads({ limit: 100, offset: 0, signal }));
      if (before instanceof ApiError && (before.kind === 'unauthorized' || before.kind === 'payment_required'))
        throw before;
      return postWithReconcile(
        'Creating the thread',
        () =>
          call({
            method: 'POST',
            path: '/v1/threads',
            body: json,
            cls: 'search',
            schema: ThreadDispatchSchema,
            signal,
          }),
        async (startedAt) => {
          const after = await tryRead(() => listThreads({ limit: 100, offset: 0, signal }));
          if (after instanceof ApiError)
            return { kind: 'unknown', reason: `the threads list could not be read: ${after.kind}` };
          const match = matchCreatedThread(before instanceof ApiError ? undefined : before, after, startedAt);
          if (match.kind !== 'found') return match;
          const thread = await tryRead(() => getThread(match.value.thread_id, { signal }));
          if (thread instanceof ApiError)
            return { kind: 'unknown', reason: `the new thread could not be polled: ${thread.kind}` };
          const first = confirmCreatedThread(thread, body.input_message);
          return first.kind === 'found'
            ? { kind: 'found', value: reconciledDispatch(thread, first.value, body.mode) }
            : first;
        },
      );
    },

    getThread: (threadId, o = {}) =>
      getThread(threadId, { includeTrace: o.includeTrace, interactionId: o.interactionId, signal: o.signal }),

    async addInteraction(threadId, body, o = {}) {
      throwIfInvalid([...validateThreadId(threadId), ...validateThreadRequest(body)]);
      const json = JSON.stringify(threadRequestJson(body));
      const signal = o.signal;
      // Snapshot first (polling is free of the monthly pool) so an ambiguous failure can be reconciled.
      const before = await tryRead(() => getThread(threadId, { signal }));
      if (before instanceof ApiError && !TRANSIENT.has(before.kind) && before.kind !== 'invalid_response') throw before;
      return postWithReconcile(
        'Sending the follow-up',
        () =>
          call({
            method: 'POST',
            path: `/v1/threads/${threadId}/interactions`,
            body: json,
            cls: 'search',
            schema: ThreadDispatchSchema,
            signal,
          }),
        async () => {
          if (before instanceof ApiError)
            return { kind: 'unknown', reason: 'the thread could not be read before sending' };
          const after = await tryRead(() => getThread(threadId, { signal }));
          if (after instanceof ApiError)
            return { kind: 'unknown', reason: `the thread could not be polled: ${after.kind}` };
          const match = matchNewInteraction(before, after);
          return match.kind === 'found'
            ? { kind: 'found', value: reconciledDispatch(after, match.value, body.mode) }
            : match;
        },
        threadId,
      );
    },

    listThreads,

    async waitForThread(thread, o = {}) {
      const dispatch = typeof thread === 'string' ? undefined : thread;
      const threadId = typeof thread === 'string' ? thread : thread.thread_id;
      throwIfInvalid(validateThreadId(threadId));
      return waitForThread({ getThread, clock, log }, threadId, dispatch, o);
    },

    close: () => transport.close(),
  };
  return client;
}
