/**
 * @kafana/client: the kafana.v1 API for TypeScript. The generated messages and service
 * descriptors (protobuf-es v2) are re-exported here; transports come from
 * "@kafana/client/node" (gRPC over HTTP/2, and the browser protocols from Node) or
 * "@kafana/client/web" (fetch: Connect, gRPC-Web).
 */
export * from "./auth.js";
export * from "./client.js";
export * from "./errors.js";
export * from "./feed.js";
export * from "./json.js";
export * from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/kafana/v1/accounts_pb.js";
export * from "./gen/kafana/v1/competitions_pb.js";
export * from "./gen/kafana/v1/errors_pb.js";
export * from "./gen/kafana/v1/events_pb.js";
export * from "./gen/kafana/v1/leagues_pb.js";
export * from "./gen/kafana/v1/rules_pb.js";
export * from "./gen/kafana/v1/service_pb.js";
export * from "./gen/kafana/v1/state_pb.js";
