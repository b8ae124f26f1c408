// What every third-party script shares: a client for the protocol asked for, the seat and admin
// metadata, ErrorInfo / RetryInfo decoding and checks. Only the generated code (clients/ts
// src/gen, protobuf-es v2) and the Connect runtime are used: no hand-written client layer.
//
// Usage of every script: node SCRIPT.mjs PROTOCOL URL [ARGS...]
//   PROTOCOL grpc     gRPC over HTTP/2 (@connectrpc/connect-node), URL http://host:PORT (--port)
//   PROTOCOL connect  the Connect protocol (JSON) on fetch, as a browser (@connectrpc/connect-web),
//                     URL http://host:HTTP (--http)
//   PROTOCOL grpcweb  gRPC-Web on fetch, as a browser, URL http://host:HTTP (--http)
// The last line a script prints is one JSON object of figures; exit status 0 means every check
// passed, 1 a failed check (the message says which).
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { ErrorInfoSchema, RetryInfoSchema } from "@kafana/client/gen/google/rpc/error_details_pb";
import { KafanaService } from "@kafana/client/gen/kafana/v1/service_pb";

export { Code, ConnectError };

/** The protocol and URL from the command line, and the remaining arguments. */
export function commandLine() {
  const [protocol, url, ...rest] = process.argv.slice(2);
  if (!["grpc", "connect", "grpcweb"].includes(protocol) || !url) {
    fail(`usage: node ${process.argv[1]} grpc|connect|grpcweb URL, got ${process.argv.slice(2)}`);
  }
  return { protocol, url, rest };
}

/** A Connect transport speaking `protocol` to `url`. */
export function transport(protocol, url) {
  if (protocol === "grpc") return createGrpcTransport({ baseUrl: url });
  if (protocol === "connect") return createConnectTransport({ baseUrl: url });
  return createGrpcWebTransport({ baseUrl: url });
}

/** The generated KafanaService client for `protocol` at `url`. */
export function kafanaClient(protocol, url) {
  return createClient(KafanaService, transport(protocol, url));
}

/** Call options that play for a seat (the token JoinTable handed out). */
export function asSeat(token) {
  return { headers: { "kafana-seat-token": token } };
}

/** Call options for a table's admin (the token CreateTable handed out). */
export function asAdmin(token) {
  return { headers: { "kafana-admin-token": token } };
}

/** The error's code, ErrorInfo (domain "kafana") and RetryInfo delay in ms (or undefined). */
export function decode(error) {
  const connectError = ConnectError.from(error);
  const infos = connectError.findDetails(ErrorInfoSchema);
  const retries = connectError.findDetails(RetryInfoSchema);
  const delay = retries[0]?.retryDelay;
  return {
    code: connectError.code,
    codeName: Code[connectError.code],
    info: infos.find((info) => info.domain === "kafana"),
    retryMillis: delay ? Number(delay.seconds) * 1000 + delay.nanos / 1e6 : undefined,
    message: connectError.rawMessage,
    metadata: connectError.metadata,
  };
}

/** The decoded refusal of `call` (a function returning a promise); a failed check if it succeeds. */
export async function refusal(call, what) {
  try {
    await call();
  } catch (error) {
    return decode(error);
  }
  fail(`${what}: the call succeeded`);
}

/** A refusal with `code` and ErrorInfo `reason`: checked, and returned. */
export async function expectRefusal(call, code, reason, what) {
  const got = await refusal(call, what);
  check(
    got.code === code && got.info?.reason === reason,
    `${what}: wanted ${Code[code]} ${reason}, got ${got.codeName} ${got.info?.reason} (${got.message})`,
  );
  return got;
}

/** Stop with a message (exit status 1). */
export function fail(message) {
  console.error(`FAILED: ${message}`);
  process.exit(1);
}

/** Fail with `message` unless `condition`. */
export function check(condition, message) {
  if (!condition) fail(message);
}

/** Print the figures (the last line: one JSON object) and exit 0. */
export function done(figures) {
  console.log(JSON.stringify({ ok: true, ...figures }, (_, v) => (typeof v === "bigint" ? `${v}` : v)));
  process.exit(0);
}

/** Run `main`, turning an unexpected error into a failed check with its code and reason. */
export function run(main) {
  main().catch((error) => {
    const got = decode(error);
    fail(`${got.codeName} ${got.info?.reason ?? "(no ErrorInfo)"}: ${got.message}\n${error?.stack ?? ""}`);
  });
}

/**
 * Every event of a table from `afterSeq` until the stream ends, and how it ended: "ok" (the
 * match is over) or the decoded error. Heartbeats are counted, not returned.
 */
export async function collect(client, tableId, { afterSeq = 0n, options = {}, onEvent } = {}) {
  const events = [];
  let heartbeats = 0;
  try {
    for await (const response of client.watchEvents({ tableId, afterSeq }, options)) {
      if (response.item.case === "heartbeat") {
        heartbeats += 1;
        continue;
      }
      check(response.item.case === "event", `a WatchEventsResponse with no item: ${response.item.case}`);
      events.push(response.item.value);
      onEvent?.(response.item.value);
    }
    return { events, heartbeats, end: "ok" };
  } catch (error) {
    return { events, heartbeats, end: decode(error) };
  }
}

/** Check that `events` are numbered first, first+1, ... with no gap and no repeat. */
export function checkContiguous(events, first, what) {
  events.forEach((event, i) => {
    check(event.seq === BigInt(first) + BigInt(i), `${what}: event ${i} has seq ${event.seq}, wanted ${BigInt(first) + BigInt(i)}`);
  });
}
