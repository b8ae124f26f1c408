/** A tiny DOM builder: `h("button", { class: "card", onclick }, "K♣")`. No framework. */

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, unknown>;

/** An element with attributes (`on*` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      element.addEventListener(key.slice(2), value as EventListener);
    } else if (value === true) {
      element.setAttribute(key, "");
    } else {
      element.setAttribute(key, String(value));
    }
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** A `table.list` (with `attrs`): a header row of `columns`, then `rows` in its body. */
export function listTable(attrs: Attrs, columns: string[], rows: Child[]): HTMLTableElement {
  return h("table", { class: "list", ...attrs },
    h("thead", {}, h("tr", {}, columns.map((t) => h("th", {}, t)))),
    h("tbody", {}, rows));
}

/** Replace everything in `parent` with `children`. */
export function fill(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
