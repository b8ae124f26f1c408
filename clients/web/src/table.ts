/**
 * A table: played with this browser's seat token, or watched as a spectator (no token: the
 * spectator feed and state, which never carry a hidden card). State from GetState, legal moves
 * from GetLegalMoves, moves by PlayMove; every WatchEvents event fetches the state again.
 */
import {
  EventKind,
  ResultReason,
  asSeat,
  EventReason,
  TableStatus,
  TacPhase,
  TacPileKind,
  type TacPile,
  type Event,
  type Move,
  type MoveInput,
  type TableState,
  type TablicView,
  type TacView,
} from "@kafana/client";
import {
  EVENT_REASONS,
  GAME_NAMES,
  PRESET_NAMES,
  RESULT_REASONS,
  STATUS_NAMES,
  client,
  clockText,
  counted,
  explain,
  freshId,
  playerName,
  reasonOf,
  renumbered,
  sideNamesOf,
  seatClient,
  seatNames,
  sideOf,
  storeSeat,
  storedSeat,
  type StoredSeat,
} from "./api.js";
import { backs, face, label, labelled, labels } from "./cards.js";
import { fill, h } from "./dom.js";

const SOUND_ITEM = "kafana.sound";

/** Whether this browser wants a tone on its turn (off unless asked for). */
function soundOn(): boolean {
  return localStorage.getItem(SOUND_ITEM) === "1";
}

function setSound(on: boolean): void {
  if (on) localStorage.setItem(SOUND_ITEM, "1");
  else localStorage.removeItem(SOUND_ITEM);
}

let audio: AudioContext | undefined;

/** A short two-note tone (Web Audio: no sound file to fetch). */
function beep(): void {
  try {
    audio ??= new AudioContext();
    const start = audio.currentTime;
    [660, 880].forEach((pitch, i) => {
      const tone = audio!.createOscillator();
      const level = audio!.createGain();
      tone.frequency.value = pitch;
      level.gain.setValueAtTime(0.15, start + i * 0.12);
      level.gain.exponentialRampToValueAtTime(0.001, start + i * 0.12 + 0.11);
      tone.connect(level).connect(audio!.destination);
      tone.start(start + i * 0.12);
      tone.stop(start + i * 0.12 + 0.12);
    });
  } catch {
    // no audio here: the title still says it
  }
}

/** A server's refusal of a move (or a hint, or a state) as the page words it: its cards as the
 * page draws them ("ILLEGAL_MOVE: 7♥ cannot capture 5♣", not 7H and 5C). */
function serverSaid(thrown: unknown): string {
  return labelled(explain(thrown));
}

/** The longest pause between two reconnects of the table's feed. */
const FEED_MAX_RETRY_MS = 15_000;

/** Names of each side ("Ana & Ivo" with partnerships). */
function sideNames(state: TableState): string[] {
  return sideNamesOf(state.info);
}

/** A move in words: "Ana took 5♣ + 4♦ with 9♥", "Ana trailed 7♠". */
export function describeMove(name: string, move: Move | undefined, names: readonly string[] = []): string {
  if (!move) return name;
  if (move.game.case === "tablic") {
    const { card, captured, joined, buildValue } = move.game.value;
    if (buildValue) return `${name} built ${buildValue}: ${label(card)} on ${labels(joined)}`;
    return captured.length ? `${name} took ${labels(captured)} with ${label(card)}` : `${name} trailed ${label(card)}`;
  }
  return `${name}: ${tacLabel(move, names, undefined)}`;
}

/** A legal Tablić move of the selected card as its button says it: "Take 5♣ + 4♦", "Build 9 on
 * 4♦", "Raise to 11: 2♠ + 4♦ + 5♣", "Trail". */
function optionLabel(move: Move, view: TablicView): string {
  if (move.game.case !== "tablic") return move.text;
  const { captured, joined, buildValue } = move.game.value;
  if (buildValue) {
    const raise = view.builds.some((b) => b.cards.some((c) => joined.includes(c)));
    return `${raise ? "Raise to" : "Build"} ${buildValue} on ${labels(joined)}`;
  }
  return captured.length ? `Take ${labels(captured)}` : "Trail";
}

/** A Tač move in words: "7♥: turned card → centre", "Turn a card over", "Tač!". */
export function tacLabel(move: Move, names: readonly string[], me: number | undefined): string {
  if (move.game.case !== "tac") return move.text;
  const action = move.game.value.action;
  if (action.case === "flip") return "Turn a card over";
  if (action.case === "call") return "Tač!";
  if (action.case !== "play") return move.text;
  const pile = (p: TacPile | undefined) => {
    if (!p || p.kind === TacPileKind.CENTRAL) return "centre";
    if (p.kind === TacPileKind.TURNED) return "turned card";
    return p.seat === me ? "your discard" : `${names[p.seat] ?? `seat ${p.seat + 1}`}'s discard`;
  };
  const card = action.value.card ? label(action.value.card) + ": " : "";
  return `${card}${pile(action.value.source)} → ${pile(action.value.target)}`;
}

/** The table page into `root`; the answer stops its feed and timers. */
export async function tablePage(
  root: HTMLElement,
  tableId: string,
  watchOnly: boolean,
  reload: () => void,
): Promise<() => void> {
  const stop = new AbortController();
  let seat: StoredSeat | undefined = watchOnly ? undefined : storedSeat(tableId);
  const seatApi = seat ? seatClient(tableId, seat) : undefined;
  let state: TableState | undefined;
  let fetchedAt = 0;
  let legal: Move[] = [];
  let selectedCard: string | undefined;
  const selectedTable = new Set<string>();
  let notice = "";
  let error = "";
  let lastMove = "";
  let lastCapture = "";
  let busy = false;
  let hint = "";
  /** The last Tablić move, drawn on the table: the card played and what it took. */
  let lastPlayed: { card: string; captured: string[]; who: string } | undefined;
  /** The card of the last move, to travel from where it was played to where it lands. */
  let travel: { card: string; seat: number; from?: DOMRect } | undefined;
  /** The hand just scored, shown until the next move of this seat or a click. */
  let handEnd: { hand: number; points: number[] } | undefined;
  let hinting = false;

  const header = h("header", { class: "table-head" });
  const noticeBox = h("p", { id: "notice", class: "notice", role: "status", "aria-live": "polite" });
  const errorBox = h("p", { id: "error", class: "error", role: "alert" });
  const connectionBox = h("p", { id: "connection", class: "connection", role: "status" });
  const board = h("div", { class: "board" });
  /** Every move in words for screen readers (the board itself is redrawn, never announced). */
  const announcer = h("div", { id: "announce", class: "visually-hidden", "aria-live": "polite", "aria-atomic": "true" });
  fill(root, header, connectionBox, noticeBox, errorBox, announcer, board);
  /** While the feed is down: its reconnect count (the page says so, and checks the table
   * every few seconds until it answers again). */
  let reconnects = 0;
  let recheck: ReturnType<typeof setTimeout> | undefined;

  async function refresh(): Promise<void> {
    const before = state;
    const next = seatApi ? await seatApi.state() : await client.state(tableId);
    let moves: Move[] = [];
    const tac = next.game.case === "tac"; // Tač: a seat not to move may still call "Tač!"
    if (seatApi && next.info?.status === TableStatus.PLAYING && (tac || next.currentSeat === seatApi.seat)) {
      moves = (await seatApi.legalMoves()).moves;
    }
    state = next;
    fetchedAt = performance.now();
    legal = moves;
    if (before?.game.case === "tablic" && next.game.case === "tablic") {
      const done = next.game.value.handResults;
      if (next.game.value.handNo > before.game.value.handNo && done.length) {
        const last = done[done.length - 1]; // a new deal: the hand before it, scored
        handEnd = { hand: last.hand, points: [...last.points] };
        lastPlayed = undefined; // a new table: the last hand's move is not on it
      }
      const names = seatNames(next.info);
      next.game.value.tablas.forEach((count, side) => {
        if (count > (before.game.value as TablicView).tablas[side]) notice = `Tabla! ${sideNames(next)[side] ?? names[side]}`;
      });
    }
    if (selectedCard && !handOf(next).includes(selectedCard)) {
      selectedCard = undefined;
      selectedTable.clear();
    }
    render();
  }

  let refreshing: Promise<void> | undefined;
  let again = false;
  function schedule(): void {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = (async () => {
      do {
        again = false;
        try {
          await refresh();
        } catch (thrown) {
          if (!reconnects) error = serverSaid(thrown); // else the connection line says it
          render();
        }
      } while (again && !stop.signal.aborted);
      refreshing = undefined;
    })();
  }

  function handOf(s: TableState): string[] {
    return s.game.case === "tablic" ? s.game.value.hand : [];
  }

  function onEvent(event: Event): void {
    const names = seatNames(state?.info);
    const who = names[event.seat] ?? `seat ${event.seat + 1}`;
    if (event.kind === EventKind.MOVE) {
      lastMove = describeMove(who, event.move, names);
      const played = event.move?.game;
      lastPlayed = played?.case === "tablic" ? { card: played.value.card, captured: [...played.value.captured], who } : undefined;
      travel = lastPlayed ? { card: lastPlayed.card, seat: event.seat, from: startOf(lastPlayed.card, event.seat) } : undefined;
      announcer.textContent = seat && event.seat === seat.seat ? lastMove.replace(who, "You") : lastMove;
      const move = event.move?.game;
      if (move?.case === "tablic" && move.value.captured.length) lastCapture = lastMove;
      if (event.reason === EventReason.TIMEOUT) {
        notice = seat && event.seat === seat.seat
          ? `Your time ran out: the server played for you (${lastMove.replace(who, "you")}).`
          : `${who}'s time ran out: the server played for them.`;
      }
    } else if (event.kind === EventKind.SEAT_TAKEN) {
      notice = `${event.name || who} took seat ${event.seat + 1}.`;
    } else if (event.kind === EventKind.FORFEIT) {
      notice = `${who} forfeited (${EVENT_REASONS[event.reason] ?? "forfeit"}).`;
    }
    if (event.handScore) notice = `Hand ${event.handScore.hand + 1} scored.`;
    if (event.matchOver) notice = "The match is over.";
  }

  /** A Tablić move of `card` taking `captured` (none: a trail). */
  function tablicMove(card: string, captured: string[]): MoveInput {
    return { game: { case: "tablic", value: { card, captured } } };
  }

  async function play(move: MoveInput): Promise<void> {
    if (!seatApi || !state || busy) return;
    busy = true;
    error = "";
    notice = "Sending your move…"; // a pending state: a slow network once showed nothing for 5 s
    render();
    try {
      await seatApi.play(move, state.seq, { clientMoveId: freshId() });
      selectedCard = undefined;
      selectedTable.clear();
      notice = "";
      hint = "";
      handEnd = undefined;
      performance.mark("kafana-move-played");
    } catch (thrown) {
      const reason = reasonOf(thrown);
      notice = "";
      if (reason === "STALE_SEQ") {
        // another seat moved first (Tač: a call and a move at once): not the player's fault
        notice = "The table moved on before your move arrived: here it is now.";
      } else {
        error = `The server refused the move: ${serverSaid(thrown)}`;
      }
      if (reason === "STALE_SEQ" || reason === "NOT_YOUR_TURN") schedule();
    } finally {
      busy = false;
    }
    render();
    schedule();
  }

  /** The engine's advice for this seat's move (Analyze, on a hints table): its choice is
   * selected in the hand and on the table, ready to play. */
  async function askHint(): Promise<void> {
    if (!seat || !state || hinting) return;
    hinting = true;
    hint = "The engine is thinking…";
    render();
    try {
      const answer = await client.kafana.analyze({ tableId }, asSeat(seat.token));
      const best = answer.best?.game;
      if (best?.case === "tablic") {
        selectedCard = best.value.card;
        selectedTable.clear();
        best.value.captured.forEach((c) => selectedTable.add(c));
        const value = answer.moves.find((m) => m.cost === 0)?.value;
        hint = `Hint: ${best.value.captured.length ? `take ${labels(best.value.captured)} with ${label(best.value.card)}` : `trail ${label(best.value.card)}`}`
          + (value !== undefined ? ` (about ${value >= 0 ? "+" : ""}${value.toFixed(1)} points of margin by the hand's end, ${answer.method})` : "");
      } else {
        hint = "No hint here.";
      }
    } catch (thrown) {
      hint = `No hint: ${serverSaid(thrown)}`;
    } finally {
      hinting = false;
    }
    render();
    root.querySelector<HTMLElement>("#play-selection:not([disabled]), #trail:not([disabled])")?.focus();
  }

  let joining: number | undefined; // the seat being taken (its button shows it is pending)
  async function join(wanted: number): Promise<void> {
    if (joining !== undefined) return;
    joining = wanted;
    render();
    try {
      const taken = await client.join(tableId, playerName(), wanted);
      storeSeat(tableId, { seat: taken.seat, token: taken.token, name: playerName() });
      if (watchOnly) location.hash = `#/t/${tableId}`;
      else reload();
    } catch (thrown) {
      error = `Could not take the seat: ${explain(thrown)}`;
    } finally {
      joining = undefined;
    }
    render();
  }

  function clockCell(s: TableState, seatNo: number): HTMLElement | null {
    if (!s.info?.clock?.moveMillis || s.info.status !== TableStatus.PLAYING) return null; // no 0:00 while waiting
    return h("span", { class: "clock" + (s.currentSeat === seatNo ? " running" : ""), "data-seat": seatNo },
      clockText(s.remainingMillis[seatNo] ?? 0));
  }

  function tick(): void {
    if (!state || state.currentSeat === undefined || state.info?.status !== TableStatus.PLAYING) return;
    const elapsed = performance.now() - fetchedAt;
    const left = (state.remainingMillis[state.currentSeat] ?? 0) - elapsed;
    for (const element of root.querySelectorAll<HTMLElement>(`.clock[data-seat="${state.currentSeat}"]`)) {
      element.textContent = clockText(left);
      element.classList.toggle("low", left < 10_000);
    }
  }
  const timer = setInterval(tick, 250);

  /** Before the board is redrawn: what gives the focus back after (the same card or button,
   * else, when it was in the hand, the hand's first card: the keyboard stays in the game). */
  function focusToKeep(): () => void {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !board.contains(active)) return () => undefined;
    const area = active.closest(".hand") ? ".hand" : active.closest(".my-hand") ? ".my-hand" : active.closest(".table-cards") ? ".table-cards" : "";
    const card = active.dataset.card;
    const same = card ? `${area} [data-card="${card}"]` : active.id ? `#${active.id}` : "";
    const inHand = area === ".hand" || area === ".my-hand";
    return () => {
      const again = same ? board.querySelector<HTMLElement>(same) : null;
      const usable = again && !(again as HTMLButtonElement).disabled ? again : null;
      // the hand's first card, else its heading; once the match is over (no hand): the result
      const target = usable ?? (inHand ? board.querySelector<HTMLElement>(".hand button.card") ?? board.querySelector<HTMLElement>(".my-hand h2, #result h2") : null);
      if (target?.tagName === "H2") target.setAttribute("tabindex", "-1"); // focusable by script
      target?.focus();
    };
  }

  /** Where a played card starts from: the card in this seat's hand, else the seat's panel. */
  function startOf(card: string, seatNo: number): DOMRect | undefined {
    // The player's own card comes from the hand, even once the move's answer has redrawn the
    // hand without it (the answer can arrive before the feed's event); others' from their seat.
    const own = seat && seatNo === seat.seat ? board.querySelector<HTMLElement>(".hand") : null;
    const from = board.querySelector<HTMLElement>(`.hand [data-card="${card}"]`) ?? own ?? board.querySelector<HTMLElement>(`.seat[data-seat="${seatNo}"] .backs, .seat[data-seat="${seatNo}"]`);
    return from?.getBoundingClientRect();
  }

  /** The last move's card travels from where it was played to where it landed (a trail or a
   * build on the table, a capture beside what it took); not with prefers-reduced-motion. */
  function travelled(): void {
    if (!travel?.from) return;
    const to = board.querySelector<HTMLElement>(`#last-take [data-card="${travel.card}"], .table-cards [data-card="${travel.card}"]`);
    if (!to) return; // the table is not drawn after the move yet
    const end = to.getBoundingClientRect();
    const dx = travel.from.left - end.left;
    const dy = travel.from.top - end.top;
    const still = matchMedia("(prefers-reduced-motion: reduce)").matches || typeof to.animate !== "function";
    if (!still) to.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: 550, easing: "ease-out" });
    root.dataset.travel = `${travel.card} ${still ? "still" : `${Math.round(dx)},${Math.round(dy)}`}`;
    travel = undefined;
  }

  function render(): void {
    fill(noticeBox, notice);
    fill(errorBox, error);
    if (!state) return;
    root.dataset.seq = String(state.seq);
    const info = state.info;
    const names = seatNames(info);
    const rules = info?.rules;
    const preset = rules?.variant.case === "tablic" ? PRESET_NAMES[rules.variant.value.preset] : "";
    fill(header,
      h("a", { href: "#/", class: "back" }, "← Lobby"),
      h("h1", {}, info?.name || tableId),
      seat ? h("label", { class: "sound" }, h("input", { type: "checkbox", id: "sound", checked: soundOn(), onchange: (e: globalThis.Event) => setSound((e.target as HTMLInputElement).checked) }), " Sound on my turn") : null,
      h("p", { class: "meta" },
        `${GAME_NAMES[rules?.game ?? 0] ?? "?"}${preset ? " · " + preset : ""} · ${STATUS_NAMES[info?.status ?? 0] ?? ""}`,
        rules?.variant.case === "tablic" ? ` · to ${rules.variant.value.target === undefined ? "? points" : counted(rules.variant.value.target, "point")}` : "",
        seat ? ` · you are ${names[seat.seat]} (seat ${seat.seat + 1})` : " · watching",
        info?.status === TableStatus.FINISHED ? h("a", { href: `#/r/${tableId}`, class: "button" }, " Replay") : null));
    const parts: (HTMLElement | null)[] = [];
    if (info?.status === TableStatus.OPEN && !seat) {
      parts.push(h("section", { class: "panel join" }, h("h2", {}, "Free seats"),
        info.seats.filter((s) => !s.taken).map((s) =>
          h("button", { type: "button", class: "take-seat", disabled: joining !== undefined, "aria-busy": joining === s.seat ? "true" : undefined, onclick: () => void join(s.seat) },
            joining === s.seat ? `Taking seat ${s.seat + 1}…` : `Take seat ${s.seat + 1}`))));
    } else if (info?.status === TableStatus.OPEN) {
      parts.push(waitingPanel());
    }
    if (state.game.case === "tablic") parts.push(...tablicBoard(state, state.game.value, names));
    else if (state.game.case === "tac") parts.push(...tacBoard(state, state.game.value, names));
    if (state.result && info?.status === TableStatus.FINISHED) parts.push(resultBanner(state));
    const focus = focusToKeep();
    if (travel && !travel.from) travel.from = startOf(travel.card, travel.seat);
    fill(board, parts);
    focus();
    travelled();
    title(state);
    tick();
  }

  /** While the other seats are free: a link to send a friend (copy button) and, for the
   * table's creator, a button that cancels the table (CloseTable with its admin token). */
  function waitingPanel(): HTMLElement {
    const link = `${location.origin}${location.pathname}#/t/${tableId}`;
    const linkBox = h("input", { id: "share-link", readonly: true, value: link, "aria-label": "link to this table" });
    const admin = localStorage.getItem(`kafana.admin.${tableId}`);
    return h("section", { class: "panel waiting" },
      h("p", {}, "Waiting for the other seats to be taken… Send this link to whoever you want to play:"),
      h("div", { class: "share" }, linkBox, h("button", { type: "button", id: "copy-link", onclick: () => void copyLink(linkBox) }, "Copy link")),
      h("p", { id: "copy-status", class: "hint", role: "status" }, copyStatus),
      admin ? h("button", { type: "button", id: "cancel-table", class: "danger", onclick: () => void cancel(admin) }, "Cancel this table") : null);
  }

  let copyStatus = "";
  async function copyLink(box: HTMLInputElement): Promise<void> {
    try {
      await navigator.clipboard.writeText(box.value);
      copyStatus = "Link copied.";
    } catch {
      box.select(); // no clipboard (an insecure origin): selected for Ctrl+C
      copyStatus = "Select the link and copy it (Ctrl+C).";
    }
    render();
  }

  async function cancel(adminToken: string): Promise<void> {
    try {
      await client.closeTable(tableId, adminToken);
      localStorage.removeItem(`kafana.admin.${tableId}`);
      location.hash = "#/";
    } catch (thrown) {
      error = `Could not cancel the table: ${explain(thrown)}`;
      render();
    }
  }

  /** The tab's title: "● Your move" first when this seat is to play (seen from other tabs);
   * with the sound on, a short tone when the turn comes to this seat. */
  let cuedAt = -1n; // the seq of the last turn cued: one tone a turn, however often it redraws
  function title(s: TableState): void {
    const mine = seat !== undefined && s.info?.status === TableStatus.PLAYING && (s.currentSeat === seat.seat || (s.game.case === "tac" && legal.length > 0));
    if (mine && s.seq > cuedAt) {
      cuedAt = s.seq;
      if (soundOn()) beep();
    }
    const name = s.info?.name || "table";
    document.title = mine ? `● Your move · ${name} · Kafana` : s.info?.status === TableStatus.FINISHED ? `Match over · ${name} · Kafana` : `${name} · Kafana`;
  }

  /** A panel for each seat: its name, clock, `extra` facts and `cards` (face down; for this browser's
   * own seat what `cards` gives it: its Tač closed pile, or a Tablić hand's count, the hand
   * being face up under *Your hand*). */
  function seatsPanel(s: TableState, names: string[], cards: (seatNo: number, mine: boolean) => HTMLElement | null, extra: (seatNo: number) => string): HTMLElement {
    return h("section", { class: "seats" }, names.map((name, seatNo) => {
      const mine = seat?.seat === seatNo;
      return h("div", { class: "seat" + (s.currentSeat === seatNo ? " to-move" : "") + (mine ? " mine" : ""), "data-seat": seatNo },
        h("div", { class: "seat-name" }, name, mine ? " (you)" : "", s.currentSeat === seatNo ? h("span", { class: "turn" }, " to move") : null, " ", clockCell(s, seatNo)),
        h("div", { class: "seat-info" }, extra(seatNo)),
        cards(seatNo, mine));
    }));
  }

  function tablicBoard(s: TableState, view: TablicView, names: string[]): HTMLElement[] {
    /** A table card: chosen for a capture by a click (a build's card: the whole build). */
    const tableCard = (card: string, unit: readonly string[] = [card]) => face(card, {
      selected: selectedTable.has(card),
      legal: takeable.has(card),
      onclick: mine ? () => {
        const on = !selectedTable.has(card);
        for (const c of unit) {
          if (on) selectedTable.add(c);
          else selectedTable.delete(c);
        }
        render();
      } : undefined,
    });
    const mine = seat !== undefined && view.seat === seat.seat;
    const myTurn = mine && s.currentSeat === seat?.seat && s.info?.status === TableStatus.PLAYING;
    const sides = sideNames(s);
    const captures = (m: Move) => (m.game.case === "tablic" ? m.game.value.captured.length : 0);
    const options = selectedCard
      ? legal.filter((m) => m.game.case === "tablic" && m.game.value.card === selectedCard)
          .sort((a, b) => captures(b) - captures(a))
      : [];
    const canTake = new Set(legal.filter((m) => captures(m) > 0).map((m) => (m.game.case === "tablic" ? m.game.value.card : "")));
    const takeable = new Set(options.flatMap((m) => (m.game.case === "tablic" ? m.game.value.captured : [])));
    const seats = seatsPanel(s, names, (n, own) => own
      ? h("div", { class: "seat-hand" }, `${counted(view.hand.length, "card")} in your hand`)
      : backs(view.handSizes[n] ?? 0), (n) => {
      const side = sideOf(s.info, n);
      const captured = view.captured[side]?.cards.length ?? 0;
      return `${counted(view.scores[side] ?? 0, "point")} · ${counted(captured, "card")} taken · ${counted(view.tablas[side] ?? 0, "tabla")}`;
    });
    const table = h("section", { class: "table-cards", "aria-label": "cards on the table" },
      h("h2", {}, "Table"),
      view.table.length || view.builds.length ? [
        view.table.map((card) => tableCard(card)),
        view.builds.map((build) => h("div", {
          class: `build${build.cards.some((c) => takeable.has(c)) ? " legal" : ""}`, role: "group", "data-build": build.value,
          "aria-label": `a build of ${build.value}, ${names[build.owner] ?? `seat ${build.owner + 1}`}'s: ${labels(build.cards)}`,
        }, build.cards.map((card) => tableCard(card, build.cards)),
        h("span", { class: "build-value" }, `= ${build.value} · ${names[build.owner] ?? ""}`))),
      ] : h("p", { class: "empty" }, "The table is empty."),
      h("p", { class: "deck" }, `Deck: ${view.deckRemaining} cards · hand ${view.handNo + 1} · dealer ${names[view.dealer] ?? ""}`),
      lastPlayed?.captured.length ? h("div", { class: "last-take", id: "last-take", "aria-hidden": "true" },
        h("span", {}, `${lastPlayed.who} took `), lastPlayed.captured.map((c) => face(c, { extra: "taken" })),
        h("span", {}, " with "), face(lastPlayed.card, { extra: "arrived" })) : null);
    if (lastPlayed && !lastPlayed.captured.length) {
      table.querySelector<HTMLElement>(`[data-card="${lastPlayed.card}"]`)?.classList.add("arrived");
    }
    const parts: HTMLElement[] = [seats, table];
    if (mine && s.info?.status !== TableStatus.FINISHED) { // the match over: no move to make
      parts.push(h("section", { class: "my-hand", "aria-label": "your hand" },
        h("h2", {}, myTurn ? "Your hand: your move" : "Your hand"),
        h("div", { class: "hand" }, view.hand.map((card) => face(card, {
          selected: selectedCard === card,
          legal: canTake.has(card),
          onclick: () => {
            selectedCard = selectedCard === card ? undefined : card;
            selectedTable.clear();
            render();
            root.querySelector<HTMLElement>(`.hand [data-card="${card}"]`)?.focus();
          },
        }))),
        h("div", { class: "controls" },
          h("button", { type: "button", id: "play-selection", disabled: !myTurn || !selectedCard || selectedTable.size === 0 || busy,
            onclick: () => selectedCard && void play(tablicMove(selectedCard, [...selectedTable])) },
            selectedCard && selectedTable.size ? `Take ${labels([...selectedTable])} with ${label(selectedCard)}` : "Take the selected cards"),
          h("button", { type: "button", id: "trail", disabled: !myTurn || !selectedCard || busy,
            onclick: () => selectedCard && void play(tablicMove(selectedCard, [])) },
            selectedCard ? `Trail ${label(selectedCard)}` : "Trail"),
          s.info?.hints && myTurn ? h("button", { type: "button", id: "hint", class: "ask-hint", disabled: hinting, "aria-busy": hinting ? "true" : undefined, onclick: () => void askHint() }, "Hint") : null),
        hint ? h("p", { id: "hint-text", class: "hint", role: "status" }, hint) : null,
        options.length ? h("div", { class: "options", "aria-label": "legal moves with this card" },
          h("span", {}, "Legal: "),
          options.map((m) => h("button", { type: "button", class: "option", onclick: () => void play(m) },
            optionLabel(m, view)))) : null,
        !myTurn && s.info?.status === TableStatus.PLAYING ? h("p", { class: "waiting" }, `Waiting for ${names[s.currentSeat ?? 0]}…`) : null));
    }
    parts.push(h("section", { class: "panel last" },
      h("p", { id: "last-move" }, lastMove ? `Last move: ${lastMove}` : ""),
      h("p", { id: "last-capture" }, view.lastCapturer !== undefined
        ? `Last capture: ${names[view.lastCapturer] ?? ""}${lastCapture ? ` (${lastCapture})` : ""}` : "No capture yet.")));
    if (view.handResults.length) parts.push(handScores(view, sides));
    if (handEnd && s.info?.status === TableStatus.PLAYING) {
      const ended = handEnd;
      parts.unshift(h("section", { class: "panel hand-end", id: "hand-end", role: "status" },
        h("h2", {}, `Hand ${ended.hand + 1} is over`),
        h("p", {}, ended.points.map((p, side) => `${sides[side] ?? `side ${side + 1}`} ${p}`).join(" : "),
          ` · match ${view.scores.map((p, side) => `${sides[side] ?? `side ${side + 1}`} ${p}`).join(" : ")}`),
        h("button", { type: "button", id: "hand-end-ok", onclick: () => {
          handEnd = undefined;
          render();
        } }, "Next hand")));
    }
    return parts;
  }

  function tacBoard(s: TableState, view: TacView, names: string[]): HTMLElement[] {
    const myTurn = seat !== undefined && legal.length > 0;
    const seats = seatsPanel(s, names, (n) => backs(view.closedSizes[n] ?? 0), (n) => {
      const discard = view.discards[n]?.cards ?? [];
      const place = view.outOrder.indexOf(n);
      return `${view.closedSizes[n] ?? 0} closed · ${view.held[n] ?? 0} held · discard ${discard.length ? label(discard[discard.length - 1]) : "empty"}${place >= 0 ? ` · out ${place + 1}.` : ""}`;
    });
    const phases: Record<number, string> = { [TacPhase.DRAW]: "draw", [TacPhase.PLACE]: "place", [TacPhase.OVER]: "over" };
    const phase = phases[view.phase] ?? "";
    const parts: HTMLElement[] = [seats,
      h("section", { class: "table-cards tac" }, h("h2", {}, "Piles"),
        h("div", { class: "pile" }, h("span", {}, "Centre "), view.central.length ? face(view.central[view.central.length - 1]) : h("span", { class: "empty" }, "empty"), ` (${view.central.length})`),
        h("div", { class: "pile" }, h("span", {}, "Turned "), view.turned ? face(view.turned) : h("span", { class: "empty" }, "none")),
        view.discards.map((pile, n) => h("div", { class: "pile" }, h("span", {}, `${names[n]}'s discard `),
          pile.cards.length ? face(pile.cards[pile.cards.length - 1]) : h("span", { class: "empty" }, "empty"), ` (${pile.cards.length})`)),
        h("p", {}, `Phase: ${phase} · turn ${view.turn}`, view.pendingOffender !== undefined ? ` · ${names[view.pendingOffender]} broke the order: call Tač!` : ""),
        view.lastStep ? h("p", { id: "last-move" }, `Last: ${names[view.lastStep.seat] ?? ""}, ${view.lastStep.move ? tacLabel(view.lastStep.move, names, undefined) : ""}${view.lastStep.penalty ? `, penalty ${view.lastStep.penalty}` : ""}${view.lastStep.offence ? " (out of order)" : ""}`) : null)];
    if (seat && s.info?.status !== TableStatus.FINISHED) {
      const calls = legal.filter((m) => m.game.case === "tac" && m.game.value.action.case === "call");
      const others = legal.filter((m) => !calls.includes(m));
      parts.push(h("section", { class: "my-hand" }, h("h2", {}, myTurn ? "Your move" : "Your piles"),
        myTurn ? h("p", { class: "hint" }, "The moves the rules allow now, from the server (GetLegalMoves).",
          s.info?.rules?.variant.case === "tac" && s.info.rules.variant.value.tacCalls
            ? " At this table a move out of the mandatory order is accepted too, and any other seat may then call Tač! (a penalty of cards)."
            : " At this table every one of them keeps the mandatory order.") : null,
        calls.length ? h("button", { type: "button", class: "tac-call", onclick: () => void play(calls[0]) }, "Tač!") : null,
        h("div", { class: "options" }, others.map((m) => h("button", { type: "button", class: "option", title: m.text, onclick: () => void play(m) }, tacLabel(m, names, seat?.seat)))),
        !myTurn && s.info?.status === TableStatus.PLAYING && s.currentSeat !== undefined && s.currentSeat !== seat.seat
          ? h("p", { class: "waiting" }, `Waiting for ${names[s.currentSeat]}…`) : null));
    }
    return parts;
  }

  function handScores(view: TablicView, sides: string[]): HTMLElement {
    const body = h("tbody");
    for (const score of view.handResults) {
      sides.forEach((side, i) => body.appendChild(h("tr", {},
        i === 0 ? h("td", { rowspan: sides.length }, `Hand ${score.hand + 1}`) : null,
        h("td", { class: "side" }, side), h("td", {}, score.cards[i] ?? 0), h("td", {}, score.cardPoints[i] ?? 0),
        h("td", {}, score.mostCards[i] ?? 0), h("td", {}, score.tablas[i] ?? 0), h("th", {}, score.points[i] ?? 0))));
    }
    return h("section", { class: "panel scores" }, h("h2", {}, "Hand scores"),
      h("table", { class: "list", id: "hand-scores" },
        h("thead", {}, h("tr", {}, ["Hand", "Side", "Cards", "Card points", "Most cards", "Tablas", "Points"].map((t) => h("th", {}, t)))),
        body));
  }

  function resultBanner(s: TableState): HTMLElement {
    const result = s.result!;
    const sides = sideNames(s);
    const winner = result.winnerSide !== undefined ? `${sides[result.winnerSide] ?? ""} won` : "A draw";
    const scores = result.scores.length ? ` · ${result.scores.map((points, side) => `${sides[side] ?? `side ${side + 1}`} ${points}`).join(" : ")}` : "";
    // the server's detail, in names (a score's repeats the line above)
    const detail = result.detail && result.reason !== ResultReason.SCORE ? renumbered(result.detail, seatNames(s.info), sides) : "";
    return h("section", { class: "panel result", id: "result", role: "status" },
      h("h2", {}, "Match over"),
      h("p", {}, `${winner}${scores} (${RESULT_REASONS[result.reason] ?? ""})`, detail ? ` · ${detail}` : ""),
      h("a", { href: `#/r/${tableId}`, class: "button" }, "Replay this match"), " ",
      seat ? h("button", { type: "button", id: "rematch", onclick: () => void rematch(s) }, "Rematch") : null);
  }

  /** The same table again (rules, clock, hints, the same bots in the same seats), this
   * browser in its seat: the other people get the new table's link to share. */
  async function rematch(s: TableState): Promise<void> {
    const info = s.info;
    if (!info || !seat) return;
    try {
      const made = await client.createTable({
        rules: info.rules,
        name: info.name,
        clock: info.clock,
        hints: info.hints,
        bots: info.seats.filter((x) => x.bot).map((x) => ({ seat: x.seat, bot: x.bot })),
      });
      localStorage.setItem(`kafana.admin.${made.tableId}`, made.adminToken);
      const taken = await client.join(made.tableId, seat.name, seat.seat);
      storeSeat(made.tableId, { seat: taken.seat, token: taken.token, name: seat.name });
      location.hash = `#/t/${made.tableId}`;
    } catch (thrown) {
      error = `Could not start a rematch: ${explain(thrown)}`;
      render();
    }
  }

  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      selectedCard = undefined;
      selectedTable.clear();
      render();
    }
  });

  try {
    await refresh();
  } catch (thrown) {
    error = `Could not load the table: ${explain(thrown)}`;
    if (seat && reasonOf(thrown) === "BAD_SEAT_TOKEN") seat = undefined;
    render();
    return () => {
      stop.abort();
      clearInterval(timer);
    };
  }
  /** The feed is back (an event came, or the table answered): say so once. */
  function reconnected(): void {
    if (!reconnects) return;
    reconnects = 0;
    clearTimeout(recheck);
    fill(connectionBox, "Reconnected.");
    connectionBox.classList.remove("down");
    setTimeout(() => {
      if (!reconnects) fill(connectionBox);
    }, 3000);
  }

  /** While reconnecting: GetState now and then; the first answer means the server is back. */
  function checkBack(): void {
    clearTimeout(recheck);
    recheck = setTimeout(async () => {
      if (!reconnects || stop.signal.aborted) return;
      try {
        await refresh();
        error = "";
        reconnected();
        render();
      } catch {
        checkBack();
      }
    }, Math.min(30_000, 1000 * 2 ** Math.min(reconnects, 5)));
  }

  void (async () => {
    const after = state?.seq ?? 0n;
    const options = {
      afterSeq: after,
      signal: stop.signal,
      maxRetryMillis: FEED_MAX_RETRY_MS,
      giveUpMillis: Number.POSITIVE_INFINITY, // a player comes back: never give up
      onReconnect: (why: { message: string }) => {
        reconnects += 1;
        connectionBox.classList.add("down");
        fill(connectionBox, `Connection to the server lost (${why.message || "no answer"}): reconnecting, try ${reconnects}…`);
        checkBack();
      },
    };
    const feed = seatApi ? seatApi.events(options) : client.events(tableId, options);
    try {
      for await (const event of feed) {
        reconnected();
        onEvent(event);
        schedule();
      }
      schedule();
    } catch (thrown) {
      if (!stop.signal.aborted) {
        error = `The table's feed stopped: ${explain(thrown)}. Reload the page to follow it again.`;
        render();
      }
    }
  })();
  return () => {
    stop.abort();
    clearInterval(timer);
    clearTimeout(recheck);
  };
}

