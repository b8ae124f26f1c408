/**
 * Feeds that survive server restarts. A table's (WatchEvents) ends OK only once the match is
 * over; on UNAVAILABLE (the server stopping), a lost connection (the server killed: each
 * transport's words for it, `isConnectionLost`), a rate limit (after its RetryInfo delay) or a
 * silent stream (no event and no heartbeat for `idleMillis`) it reconnects with `after_seq` =
 * the last seq seen, so every event arrives exactly once and in order. An account's
 * (WatchAccount) resumes the same way after the last notice id. Heartbeats are skipped.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { Event } from "./gen/kafana/v1/events_pb.js";
import type { AccountNotice, KafanaService } from "./gen/kafana/v1/service_pb.js";
import { authHeaders } from "./auth.js";
import { isRetryable, isServerRefusal, refusal, type Refusal } from "./errors.js";

/** How to follow a feed. */
export interface FeedOptions {
  /** Resume after this seq (0n: from the start). */
  afterSeq?: bigint;
  /** Watch as this seat (deals then show its own cards). */
  seatToken?: string;
  /** Each event also carries the whole table (Event.state). */
  withState?: boolean;
  /** Stops the feed (the generator throws the abort's ConnectError). */
  signal?: AbortSignal;
  /** Reconnect when nothing arrives for this long (default 15 s: three heartbeats). */
  idleMillis?: number;
  /** First pause before a reconnect (default 100 ms); it doubles up to `maxRetryMillis`. */
  retryMillis?: number;
  /** Longest pause between reconnects (default 2 s). */
  maxRetryMillis?: number;
  /**
   * Give up (throw the last error) after failing to reconnect for this long, or at once when
   * the server's RetryInfo asks to wait past it (default 60 s).
   */
  giveUpMillis?: number;
  /** Told about every reconnect: the error that ended the stream and the seq resumed after. */
  onReconnect?: (why: Refusal, afterSeq: bigint) => void;
}

/**
 * Whether a stream that ended with `error` is worth resuming: whatever `isRetryable` retries
 * (the server stopping, a rate limit, a connection lost: a server killed mid-stream on any
 * transport), a deadline, and a Canceled or Aborted with no Kafana ErrorInfo (a stream this
 * feed did not cancel, so its connection broke). The caller's own abort is never resumed.
 */
function resumable(error: ConnectError): boolean {
  if (isRetryable(error) || error.code === Code.DeadlineExceeded) return true;
  return (error.code === Code.Canceled || error.code === Code.Aborted) && !isServerRefusal(error);
}

function pause(millis: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, millis);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** How a stream is retried (shared by the table and the account feeds). */
type RetryOptions = Pick<
  FeedOptions,
  "signal" | "idleMillis" | "retryMillis" | "maxRetryMillis" | "giveUpMillis"
>;

/**
 * The reconnect loop under both feeds: `open` starts a stream from the current cursor, `take`
 * turns each message into the item to yield (undefined: skip it, e.g. a heartbeat or a repeat)
 * and advances the cursor; a stream that ends OK ends the feed.
 */
async function* reconnecting<M, Y>(
  open: (signal: AbortSignal) => AsyncIterable<M>,
  take: (message: M) => Y | undefined,
  options: RetryOptions,
  onReconnect: (why: Refusal) => void,
): AsyncGenerator<Y, void, undefined> {
  const idleMillis = options.idleMillis ?? 15_000;
  const firstRetry = options.retryMillis ?? 100;
  const maxRetry = options.maxRetryMillis ?? 2_000;
  const giveUp = options.giveUpMillis ?? 60_000;
  let retry = firstRetry;
  let failingSince: number | undefined;
  for (;;) {
    const attempt = new AbortController();
    const stop = () => attempt.abort(options.signal?.reason);
    if (options.signal?.aborted) stop(); // aborted before: the call fails at once, Canceled
    options.signal?.addEventListener("abort", stop);
    let idle = false;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    const rearm = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        idle = true;
        attempt.abort();
      }, idleMillis);
    };
    try {
      rearm();
      for await (const message of open(attempt.signal)) {
        rearm();
        failingSince = undefined;
        retry = firstRetry;
        const item = take(message);
        if (item !== undefined) yield item;
      }
      return; // ended OK: nothing more will come (the match is over)
    } catch (thrown) {
      if (options.signal?.aborted) throw thrown;
      const error = idle
        ? new ConnectError(`no message or heartbeat for ${idleMillis} ms`, Code.Unavailable)
        : ConnectError.from(thrown);
      if (!resumable(error)) throw error;
      const now = Date.now();
      failingSince ??= now;
      const why = refusal(error);
      const wait = Math.max(retry, why.retryAfterMillis ?? 0);
      if (now + wait - failingSince > giveUp) throw error; // a wait past giveUp: give up now
      onReconnect(why);
      await pause(wait, options.signal);
      retry = Math.min(retry * 2, maxRetry);
    } finally {
      clearTimeout(watchdog);
      options.signal?.removeEventListener("abort", stop);
    }
  }
}

/** Every event of `tableId` after `options.afterSeq`, across reconnects, until the match is over. */
export function followEvents(
  client: Client<typeof KafanaService>,
  tableId: string,
  options: FeedOptions = {},
): AsyncGenerator<Event, void, undefined> {
  const headers = authHeaders({ seatToken: options.seatToken });
  let after = options.afterSeq ?? 0n;
  return reconnecting(
    (signal) =>
      client.watchEvents(
        { tableId, afterSeq: after, withState: options.withState ?? false },
        { headers, signal },
      ),
    (response) => {
      if (response.item.case !== "event") return undefined; // a heartbeat: the stream is alive
      const event = response.item.value;
      if (event.seq <= after) return undefined; // already delivered before a reconnect
      after = event.seq;
      return event;
    },
    options,
    (why) => options.onReconnect?.(why, after),
  );
}

/** How to follow an account's notices (WatchAccount). */
export interface AccountFeedOptions extends RetryOptions {
  /** Resume after this notice id (AccountNotice.id); "" or absent: from now on. */
  after?: string;
  /** Told about every reconnect: why, and the notice id resumed after. */
  onReconnect?: (why: Refusal, after: string) => void;
}

/**
 * The notices of the API key's account (seated, your turn, game over, league tickets) for every
 * table at once, resumed after the last notice id across reconnects; heartbeats skipped. The
 * key goes on the transport (`apiKeyInterceptor`) or in `headers`.
 */
export function followAccount(
  client: Client<typeof KafanaService>,
  options: AccountFeedOptions & { headers?: Record<string, string> } = {},
): AsyncGenerator<AccountNotice, void, undefined> {
  let after = options.after ?? "";
  return reconnecting(
    (signal) => client.watchAccount({ after }, { headers: options.headers, signal }),
    (response) => {
      if (response.item.case !== "notice") return undefined; // a heartbeat
      after = response.item.value.id;
      return response.item.value;
    },
    options,
    (why) => options.onReconnect?.(why, after),
  );
}
