/**
 * Auth travels in call metadata, never in message bodies (kafana/v1/service.proto):
 * `authorization: Bearer <api key>` names the calling account, `kafana-seat-token` the seat a
 * call plays for (JoinTable hands it out), `kafana-admin-token` the table's admin
 * (CreateTable hands it out).
 */
import type { Interceptor } from "@connectrpc/connect";

/** The metadata keys the server reads. */
export const SEAT_TOKEN_HEADER = "kafana-seat-token";
export const ADMIN_TOKEN_HEADER = "kafana-admin-token";
export const AUTHORIZATION_HEADER = "authorization";

/** What a call may carry; every field optional. */
export interface Credentials {
  /** An account's API key (`kafana account` hands them out). */
  apiKey?: string;
  /** A seat's token (JoinTableResponse.seat_token). */
  seatToken?: string;
  /** A table's admin token (CreateTableResponse.admin_token). */
  adminToken?: string;
}

/** Call headers for `credentials` (pass as `{ headers }` in a call's options). */
export function authHeaders(credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.apiKey) headers[AUTHORIZATION_HEADER] = `Bearer ${credentials.apiKey}`;
  if (credentials.seatToken) headers[SEAT_TOKEN_HEADER] = credentials.seatToken;
  if (credentials.adminToken) headers[ADMIN_TOKEN_HEADER] = credentials.adminToken;
  return headers;
}

/** Call options for one seat: `client.playMove(request, asSeat(token))`. */
export function asSeat(seatToken: string): { headers: Record<string, string> } {
  return { headers: authHeaders({ seatToken }) };
}

/** Call options for a table's admin: `client.closeTable(request, asAdmin(token))`. */
export function asAdmin(adminToken: string): { headers: Record<string, string> } {
  return { headers: authHeaders({ adminToken }) };
}

/** An interceptor that sends the API key on every call of a transport. */
export function apiKeyInterceptor(apiKey: string): Interceptor {
  return (next) => async (request) => {
    request.header.set(AUTHORIZATION_HEADER, `Bearer ${apiKey}`);
    return next(request);
  };
}
