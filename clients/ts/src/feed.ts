/**
 * A table's event feed that survives server restarts: WatchEvents ends OK only once the match
 * is over; on UNAVAILABLE (the server stopping, a network error) or a silent stream (no event
 * and no heartbeat for `idleMillis`) it reconnects with `after_seq` = the last seq seen, so
 * every event arrives exactly once and in order. Heartbeats are skipped.
 */
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { Event } from "./gen/kafana/v1/events_pb.js";
import type { KafanaService } from "./gen/kafana/v1/service_pb.js";
import { authHeaders } from "./auth.js";
import { isNetworkFailure, refusal, type Refusal } from "./errors.js";

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
  /** Give up (throw the last error) after failing to reconnect for this long (default 60 s). */
  giveUpMillis?: number;
  /** Told about every reconnect: the error that ended the stream and the seq resumed after. */
  onReconnect?: (why: Refusal, afterSeq: bigint) => void;
}

/** Whether a stream that ended with `error` is worth resuming. */
function resumable(error: ConnectError): boolean {
  return (
    error.code === Code.Unavailable ||
    error.code === Code.DeadlineExceeded ||
    isNetworkFailure(error)
  );
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

/** Every event of `tableId` after `options.afterSeq`, across reconnects, until the match is over. */
export async function* followEvents(
  client: Client<typeof KafanaService>,
  tableId: string,
  options: FeedOptions = {},
): AsyncGenerator<Event, void, undefined> {
  const idleMillis = options.idleMillis ?? 15_000;
  const firstRetry = options.retryMillis ?? 100;
  const maxRetry = options.maxRetryMillis ?? 2_000;
  const giveUp = options.giveUpMillis ?? 60_000;
  const headers = authHeaders({ seatToken: options.seatToken });
  let after = options.afterSeq ?? 0n;
  let retry = firstRetry;
  let failingSince: number | undefined;
  for (;;) {
    const attempt = new AbortController();
    const stop = () => attempt.abort(options.signal?.reason);
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
      const stream = client.watchEvents(
        { tableId, afterSeq: after, withState: options.withState ?? false },
        { headers, signal: attempt.signal },
      );
      for await (const response of stream) {
        rearm();
        failingSince = undefined;
        retry = firstRetry;
        if (response.item.case !== "event") continue; // a heartbeat: the stream is alive
        const event = response.item.value;
        if (event.seq <= after) continue; // already delivered before a reconnect
        after = event.seq;
        yield event;
      }
      return; // ended OK: the match is over and its last event was sent
    } catch (thrown) {
      if (options.signal?.aborted) throw thrown;
      const error = idle
        ? new ConnectError(`no event or heartbeat for ${idleMillis} ms`, Code.Unavailable)
        : ConnectError.from(thrown);
      if (!resumable(error)) throw error;
      const now = Date.now();
      failingSince ??= now;
      if (now - failingSince > giveUp) throw error;
      options.onReconnect?.(refusal(error), after);
      await pause(retry, options.signal);
      retry = Math.min(retry * 2, maxRetry);
    } finally {
      clearTimeout(watchdog);
      options.signal?.removeEventListener("abort", stop);
    }
  }
}
