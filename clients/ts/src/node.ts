/**
 * Transports for Node (@connectrpc/connect-node): gRPC over HTTP/2 to `kafana serve --port`,
 * and the browser protocols (Connect, gRPC-Web) over HTTP/1.1 to `kafana serve --http`.
 */
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import type { Interceptor, Transport } from "@connectrpc/connect";

/** Options every transport here takes. */
export interface TransportOptions {
  /** Interceptors, e.g. `apiKeyInterceptor(key)`. */
  interceptors?: Interceptor[];
  /** A deadline for every unary call, in milliseconds (streams are not limited). */
  defaultTimeoutMs?: number;
}

/** gRPC over HTTP/2, e.g. `grpcTransport("http://127.0.0.1:50051")` (https:// for TLS). */
export function grpcTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  return createGrpcTransport({ baseUrl, ...options });
}

/** The Connect protocol (binary) over HTTP/1.1, as a browser speaks it, from Node. */
export function connectTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  return createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true, ...options });
}

/** gRPC-Web over HTTP/1.1, as a browser speaks it, from Node. */
export function grpcWebTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  return createGrpcWebTransport({ baseUrl, httpVersion: "1.1", ...options });
}
