/** Line plots as SVG, drawn by the page (no library): rating curves and histories. */

const SVG = "http://www.w3.org/2000/svg";

/** One line: its name (the legend) and its values, in order. */
export interface Series {
  name: string;
  values: number[];
}

function element(tag: string, attrs: Record<string, string>): SVGElement {
  const made = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) made.setAttribute(key, value);
  return made;
}

/** `series` on shared axes, a dot per value (one value draws no line), the range labelled,
 * each line of class `series-N` and named in a legend. */
export function linePlot(series: Series[], label: string, width = 560, height = 200): SVGSVGElement {
  const svg = element("svg", { viewBox: `0 0 ${width} ${height + 18 * series.length}`, class: "plot", role: "img", "aria-label": label }) as SVGSVGElement;
  const values = series.flatMap((s) => s.values);
  if (values.length === 0) return svg;
  const longest = Math.max(...series.map((s) => s.values.length));
  const low = Math.min(...values);
  const high = Math.max(...values);
  const pad = 28;
  const x = (i: number) => pad + (longest === 1 ? 0 : (i * (width - 2 * pad)) / (longest - 1));
  const y = (v: number) => height - pad - (high === low ? 0.5 : (v - low) / (high - low)) * (height - 2 * pad);
  series.forEach((s, n) => {
    const cls = `series-${n % 6}`;
    svg.appendChild(element("polyline", { class: cls, points: s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ") }));
    s.values.forEach((v, i) => svg.appendChild(element("circle", { class: cls, cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: "3.5" })));
    const legend = element("text", { x: String(pad), y: String(height + 14 + 18 * n), class: cls });
    legend.textContent = `— ${s.name}`;
    svg.appendChild(legend);
  });
  for (const v of [high, low]) {
    const text = element("text", { x: "2", y: String(y(v) + 4) });
    text.textContent = v.toFixed(1);
    svg.appendChild(text);
  }
  return svg;
}
