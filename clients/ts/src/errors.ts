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

/**
 * Whether resending the same call later can succeed: UNAVAILABLE (the server is stopping or
 * unreachable, the store is down), a rate limit, or no server reached at all. A PlayMove may be
 * resent only with the same client_move_id and last_seq.
 */
export function isRetryable(error: unknown): boolean {
  const { code, reason } = refusal(error);
  return code === Code.Unavailable || reason === ErrorReason.RATE_LIMITED || isNetworkFailure(error);
}
