/**
 * Refusals are `google.rpc.Status` with one `google.rpc.ErrorInfo` (domain "kafana", reason an
 * ErrorReason value's name) and, where waiting helps, a `google.rpc.RetryInfo`
 * (kafana/v1/errors.proto). Connect decodes them from `grpc-status-details-bin` (gRPC,
 * gRPC-Web) or from the error body's `details` (Connect).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema, RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { ErrorReason } from "./gen/kafana/v1/errors_pb.js";

/** The domain of every Kafana ErrorInfo. */
export const KAFANA_DOMAIN = "kafana";

/** A refusal as a client acts on it. */
export interface Refusal {
  /** The status code (Code.InvalidArgument, Code.Unavailable...). */
  code: Code;
  /** ErrorInfo.reason as the enum; ERROR_REASON_UNSPECIFIED when the error carried none. */
  reason: ErrorReason;
  /** ErrorInfo.reason as sent ("ILLEGAL_MOVE"); "" when none. */
  reasonName: string;
  /** ErrorInfo.metadata: what was wrong ("table_id", "field"...). */
  metadata: Record<string, string>;
  /** RetryInfo.retry_delay in milliseconds; undefined when waiting does not help. */
  retryAfterMillis: number | undefined;
  /** The server's message for people. */
  message: string;
}

/** Decode any thrown value into a Refusal (a non-Connect error becomes Code.Unknown). */
export function refusal(error: unknown): Refusal {
  const connectError = ConnectError.from(error);
  const info = connectError
    .findDetails(ErrorInfoSchema)
    .find((detail) => detail.domain === KAFANA_DOMAIN);
  const retry = connectError.findDetails(RetryInfoSchema)[0];
  const reasonName = info?.reason ?? "";
  const known = (ErrorReason as unknown as Record<string, number | undefined>)[reasonName];
  let retryAfterMillis: number | undefined;
  if (retry?.retryDelay) {
    retryAfterMillis =
      Number(retry.retryDelay.seconds) * 1000 + Math.round(retry.retryDelay.nanos / 1e6);
  }
  return {
    code: connectError.code,
    reason: known ?? ErrorReason.ERROR_REASON_UNSPECIFIED,
    reasonName,
    metadata: { ...(info?.metadata ?? {}) },
    retryAfterMillis,
    message: connectError.rawMessage,
  };
}

/** A call that reached no server: fetch() reports it as a TypeError, which Connect calls Unknown. */
export function isNetworkFailure(error: unknown): boolean {
  const connectError = ConnectError.from(error);
  return connectError.code === Code.Unknown && connectError.cause instanceof TypeError;
}

/** Node's and undici's codes for a connection that broke or never opened. */
const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_INVALID_SESSION",
  "ERR_STREAM_PREMATURE_CLOSE",
]);

/** How @connectrpc/connect-node names an HTTP/2 stream reset by the peer or lost with it. */
const H2_RESET = /^http\/2 stream closed with error code /;

/** The error and its causes (`cause` after `cause`, at most 8). */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = error; e !== undefined && e !== null && chain.length < 8; ) {
    chain.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
}

/** Whether the error carries a Kafana ErrorInfo: a server's answer, not a broken connection. */
export function isServerRefusal(error: unknown): boolean {
  return ConnectError.from(error)
    .findDetails(ErrorInfoSchema)
    .some((detail) => detail.domain === KAFANA_DOMAIN);
}

/**
 * A call whose connection broke or never opened (the server killed, restarting, unreachable),
 * as each transport says it: fetch (Connect, gRPC-Web in browsers and from Node) an Unknown
 * with a TypeError ("fetch failed", "terminated"); Node's HTTP/1.1 an Aborted or Unavailable
 * caused by ECONNRESET / ECONNREFUSED; Node's HTTP/2 (gRPC) a Canceled "http/2 stream closed
 * with error code CANCEL". A call the caller aborted (its AbortSignal) is not one.
 */
export function isConnectionLost(error: unknown): boolean {
  const connectError = ConnectError.from(error);
  if (isServerRefusal(connectError)) return false;
  if (isNetworkFailure(connectError)) return true;
  const code = connectError.code;
  if (
    H2_RESET.test(connectError.rawMessage) &&
    (code === Code.Canceled || code === Code.Internal || code === Code.Unavailable)
  ) {
    return true;
  }
  return causeChain(connectError.cause).some((cause) => {
    const name = (cause as { code?: unknown }).code;
    return typeof name === "string" && CONNECTION_CODES.has(name);
  });
}

/**
 * Whether resending the same call later can succeed: UNAVAILABLE (the server is stopping or
 * unreachable, the store is down), a rate limit, any refusal with a RetryInfo (the server says
 * waiting helps, e.g. QUOTA_EXCEEDED: `refusal(error).retryAfterMillis` says how long), or a
 * connection that broke or never opened (`isConnectionLost`: a server killed mid-call
 * included). A PlayMove may be resent only with the same client_move_id and last_seq: the
 * server then applies it at most once.
 */
export function isRetryable(error: unknown): boolean {
  const { code, reason, retryAfterMillis } = refusal(error);
  return (
    code === Code.Unavailable ||
    reason === ErrorReason.RATE_LIMITED ||
    retryAfterMillis !== undefined ||
    isConnectionLost(error)
  );
}
