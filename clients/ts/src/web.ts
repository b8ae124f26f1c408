/**
 * Transports for the browser (@connectrpc/connect-web, on fetch): the Connect protocol or
 * gRPC-Web to `kafana serve --http PORT` (CORS is allowed there). Node 18+ has fetch too.
 */
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Interceptor, Transport } from "@connectrpc/connect";

/** Options every transport here takes. */
export interface WebTransportOptions {
  /** Interceptors, e.g. `apiKeyInterceptor(key)`. */
  interceptors?: Interceptor[];
  /** A deadline for every unary call, in milliseconds (streams are not limited). */
  defaultTimeoutMs?: number;
  /** Connect only: JSON on the wire (readable in the browser's network tab); default binary. */
  json?: boolean;
}

/** The Connect protocol, e.g. `connectTransport("http://127.0.0.1:8080")`. */
export function connectTransport(baseUrl: string, options: WebTransportOptions = {}): Transport {
  const { json, ...rest } = options;
  return createConnectTransport({ baseUrl, useBinaryFormat: !json, ...rest });
}

/** gRPC-Web (binary). */
export function grpcWebTransport(baseUrl: string, options: WebTransportOptions = {}): Transport {
  const { json: _json, ...rest } = options;
  return createGrpcWebTransport({ baseUrl, ...rest });
}
