/**
 * A list the server hands out a page at a time (ListTables, ListEvents, ListLeagues,
 * GetLeaderboard: each page names the token of the next): the back and forward buttons and the
 * tokens of the pages walked through, so "back" asks again for the page before.
 */
import { explain } from "./api.js";
import { fill, h } from "./dom.js";

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
 * answer's `load` shows the current page (again). */
export function pagedList<T>(
  list: HTMLElement,
  status: HTMLElement,
  fetch: (token: string) => Promise<[rows: T[], next: string]>,
  draw: (rows: T[]) => HTMLElement,
  buttons: [back: Button, forward: Button],
  failed: (error: unknown) => string = explain,
): Pager & { load: () => Promise<void> } {
  async function load(): Promise<void> {
    try {
      const [rows, next] = await fetch(pages.token());
      fill(list, draw(rows));
      pages.shown(next);
      status.textContent = "";
    } catch (error) {
      status.textContent = failed(error);
    }
  }
  const pages = pager(load, ...buttons);
  return { ...pages, load };
}
