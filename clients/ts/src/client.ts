/**
 * A thin client over the generated Connect clients: one `KafanaClient` per server (any
 * transport: `grpcTransport` from "@kafana/client/node", `connectTransport` /
 * `grpcWebTransport` from "@kafana/client/web"), a `SeatClient` per seat taken, the tokens in
 * metadata, moves with a fresh client_move_id, the resumable event feed and ListTables paging.
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { createClient, type Client, type Transport } from "@connectrpc/connect";
import type { Event } from "./gen/kafana/v1/events_pb.js";
import { AccountsService } from "./gen/kafana/v1/accounts_pb.js";
import { CompetitionsService } from "./gen/kafana/v1/competitions_pb.js";
import { LeaguesService } from "./gen/kafana/v1/leagues_pb.js";
import type { Game, TableConfigSchema } from "./gen/kafana/v1/rules_pb.js";
import {
  KafanaService,
  type AccountNotice,
  type GetLegalMovesResponse,
  type PlayMoveResponse,
  type ServerInfo,
} from "./gen/kafana/v1/service_pb.js";
import type {
  MoveSchema,
  TableInfo,
  TableState,
  TableStatus,
} from "./gen/kafana/v1/state_pb.js";
import { asAdmin, asSeat } from "./auth.js";
import {
  followAccount,
  followEvents,
  type AccountFeedOptions,
  type FeedOptions,
} from "./feed.js";

/** A move: its canonical text ("KC:KD+KH", "play D->C") or the structured message. */
export type MoveInput = string | MessageInitShape<typeof MoveSchema>;

/**
 * A fresh client_move_id: crypto.randomUUID() where there is one (Node, and pages on https or
 * localhost), else 128 random bits in hex (a page on plain http has getRandomValues only).
 */
export function newMoveId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bits = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bits, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** One server, every service of kafana.v1. */
export class KafanaClient {
  /** The generated clients, for anything the helpers below do not cover. */
  readonly kafana: Client<typeof KafanaService>;
  readonly accounts: Client<typeof AccountsService>;
  readonly competitions: Client<typeof CompetitionsService>;
  readonly leagues: Client<typeof LeaguesService>;

  constructor(readonly transport: Transport) {
    this.kafana = createClient(KafanaService, transport);
    this.accounts = createClient(AccountsService, transport);
    this.competitions = createClient(CompetitionsService, transport);
    this.leagues = createClient(LeaguesService, transport);
  }

  /** Version, games, presets, switches and limits. */
  serverInfo(): Promise<ServerInfo> {
    return this.kafana.getServerInfo({});
  }

  /** Create a table; the answer's `adminToken` closes it (`closeTable`). */
  async createTable(
    config: MessageInitShape<typeof TableConfigSchema>,
  ): Promise<{ tableId: string; adminToken: string; info: TableInfo | undefined }> {
    const answer = await this.kafana.createTable({ config });
    return { tableId: answer.tableId, adminToken: answer.adminToken, info: answer.info };
  }

  /** Close a table early with its admin token. */
  async closeTable(tableId: string, adminToken: string): Promise<bigint> {
    return (await this.kafana.closeTable({ tableId }, asAdmin(adminToken))).seq;
  }

  /** Take a seat (the first free one when `seat` is undefined). */
  async join(tableId: string, name: string, seat?: number): Promise<SeatClient> {
    const answer = await this.kafana.joinTable({ tableId, name, seat });
    return new SeatClient(this.kafana, tableId, answer.seat, answer.seatToken, answer.state);
  }

  /** A table as a spectator sees it. */
  state(tableId: string): Promise<TableState> {
    return this.kafana.getState({ tableId });
  }

  /** Every event of a table, as a spectator, resumed across server restarts. */
  events(tableId: string, options: FeedOptions = {}): AsyncGenerator<Event, void, undefined> {
    return followEvents(this.kafana, tableId, options);
  }

  /**
   * The account's notices (its seats, turns, game ends and league tickets on every table),
   * resumed across reconnects. Needs the API key on the transport (`apiKeyInterceptor`).
   */
  notices(options: AccountFeedOptions = {}): AsyncGenerator<AccountNotice, void, undefined> {
    return followAccount(this.kafana, options);
  }

  /** Every table matching `filter`, newest first, fetched a page at a time. */
  async *tables(
    filter: { game?: Game; status?: TableStatus; pageSize?: number } = {},
  ): AsyncGenerator<TableInfo, void, undefined> {
    let pageToken = "";
    do {
      const page = await this.kafana.listTables({ ...filter, pageToken });
      yield* page.tables;
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
  }
}

/** One seat of one table: every call carries its `kafana-seat-token`. */
export class SeatClient {
  constructor(
    private readonly kafana: Client<typeof KafanaService>,
    readonly tableId: string,
    readonly seat: number,
    readonly token: string,
    /** The state JoinTable answered with. */
    readonly joined: TableState | undefined,
  ) {}

  /** The table as this seat sees it (its own hand included). */
  state(): Promise<TableState> {
    return this.kafana.getState({ tableId: this.tableId }, asSeat(this.token));
  }

  /** This seat's legal moves now (empty when another seat is to move) and their seq. */
  legalMoves(): Promise<GetLegalMovesResponse> {
    return this.kafana.getLegalMoves({ tableId: this.tableId }, asSeat(this.token));
  }

  /**
   * Play `move`, decided at `lastSeq`. A retry must pass the same `clientMoveId` (a fresh one
   * is drawn when it is omitted): the server then applies nothing twice.
   */
  play(
    move: MoveInput,
    lastSeq: bigint,
    options: { clientMoveId?: string; withState?: boolean } = {},
  ): Promise<PlayMoveResponse> {
    return this.kafana.playMove(
      {
        tableId: this.tableId,
        move: typeof move === "string" ? { text: move } : move,
        lastSeq,
        clientMoveId: options.clientMoveId ?? newMoveId(),
        withState: options.withState ?? false,
      },
      asSeat(this.token),
    );
  }

  /** Leave the table (during the match: the side forfeits). */
  async leave(): Promise<bigint> {
    return (await this.kafana.leaveTable({ tableId: this.tableId }, asSeat(this.token))).seq;
  }

  /** The table's events as this seat sees them (its own cards in deals), resumable. */
  events(options: Omit<FeedOptions, "seatToken"> = {}): AsyncGenerator<Event, void, undefined> {
    return followEvents(this.kafana, this.tableId, { ...options, seatToken: this.token });
  }
}
