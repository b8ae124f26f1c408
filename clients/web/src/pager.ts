/**
 * A list the server hands out a page at a time (ListTables, ListEvents, ListLeagues,
 * GetLeaderboard: each page names the token of the next): the back and forward buttons and the
 * tokens of the pages walked through, so "back" asks again for the page before.
 */
import { explain } from "./api.js";
import { fill, h, listTable } from "./dom.js";

/** A button: its id and its words. */
type Button = [id: string, label: string];

export interface Pager {
  /** The two buttons, in a `div.pager`. */
  element: HTMLElement;
  /** The token of the page to ask for ("": the first). */
  token(): string;
  /** The page asked for came: `next` is the token of the one after it ("": none). */
  shown(next: string): void;
  /** Back to the first page (what is listed changed). */
  reset(): void;
}

/** A pager whose buttons call `load` (which asks for `token()`'s page, then calls `shown`). */
export function pager(load: () => Promise<void>, back: Button, forward: Button): Pager {
  const pages: string[] = [""];
  let next = "";
  const backButton = h("button", { type: "button", id: back[0] }, back[1]);
  const forwardButton = h("button", { type: "button", id: forward[0] }, forward[1]);
  backButton.addEventListener("click", () => {
    if (pages.length > 1) pages.pop();
    void load();
  });
  forwardButton.addEventListener("click", () => {
    if (next) pages.push(next);
    void load();
  });
  return {
    element: h("div", { class: "pager" }, backButton, forwardButton),
    token: () => pages[pages.length - 1] ?? "",
    shown(token: string): void {
      next = token;
      backButton.disabled = pages.length <= 1;
      forwardButton.disabled = next === "";
    },
    reset(): void {
      pages.length = 1;
    },
  };
}

/** A list shown a page at a time in `list`: `fetch(token)` gets a page (its rows and the next
 * page's token), `draw(rows)` shows them; a failure goes to `status` as `failed(error)`. The
 * answer's `load` shows the current page (again); only the newest request's answer is shown
 * (answers can come out of order), and `list` is `aria-busy` until it is. */
export function pagedList<T>(
  list: HTMLElement,
  status: HTMLElement,
  fetch: (token: string) => Promise<[rows: T[], next: string]>,
  draw: (rows: T[]) => HTMLElement,
  buttons: [back: Button, forward: Button],
  failed: (error: unknown) => string = explain,
): Pager & { load: () => Promise<void> } {
  let asked = 0; // the newest request's number: an answer to an older one is dropped
  async function load(): Promise<void> {
    const mine = ++asked;
    list.setAttribute("aria-busy", "true");
    try {
      const [rows, next] = await fetch(pages.token());
      if (mine !== asked) return; // superseded (a filter changed, a button pressed)
      fill(list, draw(rows));
      pages.shown(next);
      status.textContent = "";
    } catch (error) {
      if (mine === asked) status.textContent = failed(error);
    } finally {
      if (mine === asked) list.removeAttribute("aria-busy");
    }
  }
  const pages = pager(load, ...buttons);
  return { ...pages, load };
}

/** `pagedList` drawn as a `listTable` (`id`, `columns`, a `row` per item), or `empty` said
 * when a page has none; the answer's `list` and `status` are the elements to place. */
export function pagedTable<T>(
  id: string,
  columns: string[],
  fetch: (token: string) => Promise<[rows: T[], next: string]>,
  row: (item: T) => HTMLElement,
  empty: string,
  buttons: [back: Button, forward: Button],
  failed: (error: unknown) => string = explain,
): Pager & { load: () => Promise<void>; list: HTMLElement; status: HTMLElement } {
  const list = h("div", { class: "tables" });
  const status = h("p", { class: "status", role: "status" });
  const pages = pagedList(list, status, fetch, (rows) => rows.length
    ? listTable({ id }, columns, rows.map(row))
    : h("p", { class: "empty" }, empty), buttons, failed);
  return { ...pages, list, status };
}
