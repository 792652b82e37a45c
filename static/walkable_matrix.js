// The walkable matrix: a heatmap on one canvas that is also a WAI-ARIA grid.
// Only a window of WINDOW x WINDOW cells around the focused one is in the DOM (virtualised,
// aria-rowindex/aria-colindex give each its place); the canvas draws every cell. Labels are
// user text: they are written with textContent only, never as markup.
// The app's server serves this file (static/, server.enableStaticServing) and a page loads it
// once: each matrix's component imports it and calls render (ui/shared/walkable_matrix.py).
const WINDOW = 16; // rows and columns of cells kept in the DOM
const PAGE = 8; // rows PageUp/PageDown jump
const MIN_CELL = 6; // px: a 128-wide matrix scrolls rather than shrink below this
const BAND = 72; // px of header band above and to the left of the cells
const views = new WeakMap(); // parentElement -> the view drawn in it
// The style sheet beside this file, at this file's version (?v=): fetched once per page.
const STYLE = new URL(`walkable_matrix.css${new URL(import.meta.url).search}`, import.meta.url).href;

function decode(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return new Float32Array(bytes.buffer);
}

function colourAt(data, value) {
  const span = data.zmax - data.zmin || 1;
  const t = Math.min(1, Math.max(0, (value - data.zmin) / span));
  const stops = data.scale;
  let k = 1;
  while (k < stops.length - 1 && stops[k][0] < t) k += 1;
  const [p0, c0] = stops[k - 1];
  const [p1, c1] = stops[k];
  const f = p1 > p0 ? (t - p0) / (p1 - p0) : 0;
  return c0.map((c, i) => Math.round(c + f * (c1[i] - c)));
}

function luminance(rgb) {
  const lin = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
}

// Black or white, whichever contrasts more (always >= 4.5:1; ui/figures/contrast.py).
function textOn(rgb) {
  const l = luminance(rgb);
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.05) ? "#ffffff" : "#000000";
}

function valueText(value, decimals) {
  return value.toFixed(decimals).replace("-", "\u2212");
}

// Each row's finite values, largest first: counted once per row, then a cell's rank is a
// binary search (a window of 256 cells is renamed on a page jump).
function rowOrder(view, i) {
  view.orders = view.orders || new Map();
  let order = view.orders.get(i);
  if (!order) {
    const row = view.z.subarray(i * view.nCols, (i + 1) * view.nCols);
    order = Float32Array.from(row.filter((v) => Number.isFinite(v))).sort().reverse();
    view.orders.set(i, order);
  }
  return order;
}

function rank(view, i, value) {
  const order = rowOrder(view, i);
  if (order.length < 2) return "";
  if (value === order[0]) return "the largest in its row";
  if (value === order[order.length - 1]) return "the smallest in its row";
  let low = 0;
  let high = order.length; // the first index whose value is not above `value`
  while (low < high) {
    const mid = (low + high) >> 1;
    if (order[mid] > value) low = mid + 1;
    else high = mid;
  }
  return `number ${low + 1} of ${order.length} in its row`;
}

// As ui/shared/walkable_data.announcement writes it.
function announce(view, i, j) {
  const { data, z, nCols } = view;
  const where = `${data.row_title} '${data.rows[i]}', ${data.col_title} '${data.cols[j]}'`;
  const value = z[i * nCols + j];
  if (!Number.isFinite(value)) return `${where}: masked`;
  const words = rank(view, i, value);
  return `${where}: ${data.value_name} ${valueText(value, data.decimals)}${words ? `, ${words}` : ""}`;
}

function el(tag, className, attrs = {}) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  return node;
}

function drawCanvas(view) {
  const { canvas, data, z, nRows, nCols, cell } = view;
  const ratio = window.devicePixelRatio || 1;
  canvas.width = nCols * cell * ratio;
  canvas.height = nRows * cell * ratio;
  canvas.style.width = `${nCols * cell}px`;
  canvas.style.height = `${nRows * cell}px`;
  const ctx = canvas.getContext("2d");
  ctx.scale(ratio, ratio);
  for (let i = 0; i < nRows; i += 1) {
    for (let j = 0; j < nCols; j += 1) {
      const value = z[i * nCols + j];
      const masked = !Number.isFinite(value);
      ctx.fillStyle = masked ? data.masked_colour : `rgb(${colourAt(data, value).join(",")})`;
      ctx.fillRect(j * cell, i * cell, cell, cell);
      if (masked && cell >= 8) { // a diagonal: masked cells differ by more than colour
        ctx.strokeStyle = "#000000";
        ctx.beginPath();
        ctx.moveTo(j * cell + 1, (i + 1) * cell - 1);
        ctx.lineTo((j + 1) * cell - 1, i * cell + 1);
        ctx.stroke();
      }
    }
  }
}

function place(node, left, top, width, height) {
  Object.assign(node.style, {
    left: `${left}px`, top: `${top}px`, width: `${width}px`, height: `${height}px`,
  });
}

// Point the DOM cell `node` at matrix cell (i, j): its coordinates, name, tab stop and,
// on a small matrix, its number.
function showCell(view, node, i, j) {
  const { data, z, nCols, active } = view;
  const value = z[i * nCols + j];
  node.setAttribute("aria-colindex", j + 2);
  node.setAttribute("aria-label", announce(view, i, j));
  node.setAttribute("tabindex", i === active[0] && j === active[1] ? 0 : -1);
  node.dataset.row = i;
  node.dataset.col = j;
  node.style.left = `${BAND + j * view.cell}px`;
  if (view.numbers) {
    const fill = Number.isFinite(value) ? colourAt(data, value) : [189, 189, 189];
    node.style.backgroundColor = Number.isFinite(value) ? `rgb(${fill.join(",")})` : data.masked_colour;
    node.style.color = textOn(fill);
    const shown = valueText(value, Math.min(2, data.decimals));
    node.textContent = Number.isFinite(value) ? shown : data.masked_label;
  }
}

// The DOM window: a header row and WINDOW rows of WINDOW cells (fewer on a small matrix),
// made once; fillWindow points them at the part of the matrix around the active cell.
function makeWindow(view) {
  const { grid, data, nRows, nCols, cell } = view;
  const rows = Math.min(WINDOW, nRows);
  const cols = Math.min(WINDOW, nCols);
  const header = el("div", "wm-row wm-head-row", { role: "row", "aria-rowindex": 1 });
  place(header, 0, 0, BAND + nCols * cell, BAND);
  const corner = el("div", "wm-corner", { role: "columnheader", "aria-colindex": 1 });
  corner.textContent = `${data.row_title} \\ ${data.col_title}`;
  place(corner, 0, 0, BAND, BAND);
  header.append(corner);
  view.colHeads = [];
  for (let n = 0; n < cols; n += 1) {
    const head = el("div", "wm-colhead", { role: "columnheader" });
    place(head, 0, 0, cell, BAND);
    view.colHeads.push(head);
    header.append(head);
  }
  const body = [header];
  view.rowNodes = [];
  for (let m = 0; m < rows; m += 1) {
    const row = el("div", "wm-row", { role: "row" });
    place(row, 0, 0, BAND + nCols * cell, cell);
    const head = el("div", "wm-rowhead", { role: "rowheader", "aria-colindex": 1 });
    place(head, 0, 0, BAND, cell);
    const cells = [];
    for (let n = 0; n < cols; n += 1) {
      const node = el("div", "wm-cell", { role: "gridcell" });
      place(node, 0, 0, cell, cell);
      cells.push(node);
    }
    row.append(head, ...cells);
    view.rowNodes.push({ row, head, cells });
    body.push(row);
  }
  grid.replaceChildren(...body);
}

// Point the DOM window at the rows and columns around the active cell.
function fillWindow(view) {
  const { data, nRows, nCols, cell, active } = view;
  const start = (a, n) => Math.max(0, Math.min(a - WINDOW / 2, n - WINDOW));
  view.r0 = start(active[0], nRows);
  view.c0 = start(active[1], nCols);
  view.colHeads.forEach((head, n) => {
    const j = view.c0 + n;
    head.setAttribute("aria-colindex", j + 2);
    head.textContent = data.cols[j];
    head.style.left = `${BAND + j * cell}px`;
  });
  view.rowNodes.forEach(({ row, head, cells }, m) => {
    const i = view.r0 + m;
    row.setAttribute("aria-rowindex", i + 2);
    row.style.top = `${BAND + i * cell}px`;
    head.textContent = data.rows[i];
    cells.forEach((node, n) => showCell(view, node, i, view.c0 + n));
  });
}

function cellNode(view, i, j) {
  return view.grid.querySelector(`[data-row="${i}"][data-col="${j}"]`);
}

function moveTo(view, i, j, focus = true) {
  const r = Math.max(0, Math.min(view.nRows - 1, i));
  const c = Math.max(0, Math.min(view.nCols - 1, j));
  const old = cellNode(view, ...view.active);
  view.active = [r, c];
  const inside = r >= view.r0 && r < view.r0 + WINDOW && c >= view.c0 && c < view.c0 + WINDOW;
  if (!inside) fillWindow(view);
  else if (old) old.setAttribute("tabindex", "-1");
  let node = cellNode(view, r, c);
  if (node === old && !inside) {
    // The window moved and the focused DOM cell now names another matrix cell: give it a
    // new element, so that focus really moves and a screen reader says the new cell.
    const fresh = node.cloneNode(true);
    node.replaceWith(fresh);
    const { cells } = view.rowNodes[r - view.r0];
    cells[cells.indexOf(node)] = fresh;
    node = fresh;
  }
  node.setAttribute("tabindex", "0");
  place(view.ring, BAND + c * view.cell, BAND + r * view.cell, view.cell, view.cell);
  view.status.textContent = announce(view, r, c);
  if (focus) {
    node.focus({ preventScroll: true });
    scrollToCell(view, r, c);
  }
}

function scrollToCell(view, r, c) {
  const { scroller, cell } = view;
  const left = BAND + c * cell;
  const top = BAND + r * cell;
  if (left < scroller.scrollLeft + BAND) scroller.scrollLeft = left - BAND;
  if (left + cell > scroller.scrollLeft + scroller.clientWidth) {
    scroller.scrollLeft = left + cell - scroller.clientWidth;
  }
  if (top < scroller.scrollTop + BAND) scroller.scrollTop = top - BAND;
  if (top + cell > scroller.scrollTop + scroller.clientHeight) {
    scroller.scrollTop = top + cell - scroller.clientHeight;
  }
}

function markChosen(view, row, col) {
  place(view.chosen, BAND + col * view.cell, BAND + row * view.cell, view.cell, view.cell);
  view.chosen.hidden = false;
}

function choose(view) {
  const [row, col] = view.active;
  markChosen(view, row, col);
  view.send("cell", { row, col });
}

function onKey(view, event) {
  const [r, c] = view.active;
  const last = [view.nRows - 1, view.nCols - 1];
  const ctrl = event.ctrlKey || event.metaKey;
  const moves = {
    ArrowUp: [r - 1, c], ArrowDown: [r + 1, c], ArrowLeft: [r, c - 1], ArrowRight: [r, c + 1],
    Home: ctrl ? [0, 0] : [r, 0], End: ctrl ? last : [r, last[1]],
    PageUp: [r - PAGE, c], PageDown: [r + PAGE, c],
  };
  if (event.key in moves) {
    event.preventDefault();
    moveTo(view, ...moves[event.key]);
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    choose(view);
  }
}

function onClick(view, event) {
  const box = view.canvas.getBoundingClientRect();
  const j = Math.floor((event.clientX - box.left) / view.cell);
  const i = Math.floor((event.clientY - box.top) / view.cell);
  if (i < 0 || j < 0 || i >= view.nRows || j >= view.nCols) return;
  moveTo(view, i, j);
  choose(view);
}

// Cells as large as the style asks, smaller to fit the width, never below MIN_CELL (then the
// matrix scrolls).
function cellSize(root, data) {
  const width = root.clientWidth || 600;
  return Math.max(MIN_CELL, Math.min(data.cell_px, Math.floor((width - BAND) / data.cols.length)));
}

// A width change (a phone turned, a sidebar opened) that changes the cell size draws the
// matrix again at the new size, on the same cell, keeping the focus if it was inside.
function watchWidth(parentElement, root) {
  new ResizeObserver(() => {
    const view = views.get(parentElement);
    if (!view || cellSize(root, view.data) === view.cell) return;
    const focused = view.grid.contains(view.grid.getRootNode().activeElement);
    const again = build(root, view.data, view.active);
    again.send = view.send;
    views.set(parentElement, again);
    if (focused) moveTo(again, ...again.active);
  }).observe(root);
}

function build(root, data, active = null) {
  const z = decode(data.values);
  const nRows = data.rows.length;
  const nCols = data.cols.length;
  const cell = cellSize(root, data);
  const uid = `wm-${data.id}`;
  const view = { data, z, nRows, nCols, cell, numbers: cell >= 24 && nRows * nCols <= 144 };
  view.active = active || (data.selected ? data.selected.slice() : [0, 0]);
  root.replaceChildren();
  root.style.setProperty("--wm-font", `${Math.min(data.font_px, Math.max(9, cell - 2))}px`);
  const about = el("p", "wm-summary", { id: `${uid}-summary` });
  // The chart's text alternative (the page's words), then the summary, then how to walk it.
  about.textContent = `${data.alt ? `${data.alt} ` : ""}${data.summary} Tab into the matrix, move with the arrow keys, Home, End, `
    + "Page Up and Page Down; Enter or a click explains a cell.";
  view.scroller = el("div", "wm-scroll");
  const plane = el("div", "wm-plane");
  place(plane, 0, 0, BAND + nCols * cell, BAND + nRows * cell);
  plane.style.position = "relative";
  view.canvas = el("canvas", "wm-canvas", { "aria-hidden": "true" });
  place(view.canvas, BAND, BAND, nCols * cell, nRows * cell);
  view.grid = el("div", "wm-grid", {
    role: "grid", "aria-label": data.title, "aria-rowcount": nRows + 1,
    "aria-colcount": nCols + 1, "aria-describedby": `${uid}-summary`,
    "data-matrix": data.id, // names the numbers drawn: a benchmark sees a redraw by it
  });
  view.ring = el("div", "wm-ring", { "aria-hidden": "true" });
  view.chosen = el("div", "wm-chosen", { "aria-hidden": "true" });
  view.chosen.hidden = true;
  plane.append(view.canvas, view.grid, view.chosen, view.ring);
  view.scroller.append(plane);
  view.status = el("p", "wm-status");
  const live = el("div", "wm-live", { "aria-live": "polite" }); // the summary, said on entering
  root.append(about, view.scroller, view.status, live);
  drawCanvas(view);
  makeWindow(view);
  fillWindow(view);
  moveTo(view, ...view.active, false);
  if (data.selected) markChosen(view, ...data.selected);
  view.grid.addEventListener("keydown", (event) => onKey(view, event));
  view.grid.addEventListener("focusin", (event) => {
    if (!view.grid.contains(event.relatedTarget)) live.textContent = data.summary;
  });
  view.canvas.parentElement.addEventListener("click", (event) => {
    if (event.target === view.canvas || event.target.classList.contains("wm-cell")) onClick(view, event);
  });
  return view;
}

// Each matrix's shadow root links the shared style sheet once.
function styled(parentElement) {
  if (parentElement.querySelector("link[data-wm-style]")) return;
  const link = el("link", "", { rel: "stylesheet", href: STYLE, "data-wm-style": "" });
  parentElement.prepend(link);
}

const utf8 = new TextDecoder();

export function render(component) {
  const { parentElement, setStateValue } = component;
  styled(parentElement);
  const data = JSON.parse(utf8.decode(component.data)); // JSON bytes: see walkable_data.sent
  const root = parentElement.querySelector(".wm");
  let view = views.get(parentElement);
  if (!view) watchWidth(parentElement, root);
  if (!view || view.data.id !== data.id || !root.contains(view.grid)) {
    view = build(root, data);
    views.set(parentElement, view);
  }
  view.send = (name, value) => setStateValue(name, value);
}
