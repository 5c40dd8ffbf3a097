// ldp ui: the page. Plain DOM, no framework; every value from the lake goes in as text.
"use strict";

const main = () => document.getElementById("main");

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "onclick") node.addEventListener("click", value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, options) {
  const response = await fetch(path, Object.assign({ credentials: "same-origin" }, options || {}));
  const body = await response.json().catch(() => ({ error: { message: response.statusText } }));
  if (!response.ok) throw new Error((body.error && body.error.message) || response.statusText);
  return body;
}

function age(seconds) {
  if (seconds === null || seconds === undefined) return "never";
  const s = Math.max(0, Math.round(seconds));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d) return `${d}d ${h}h`;
  if (h) return `${h}h ${m}m`;
  if (m) return `${m}m`;
  return `${s}s`;
}

const number = (n) => (n === null || n === undefined ? "" : Number(n).toLocaleString("en-US"));
const badge = (text, kind) => el("span", { class: `badge ${kind || text}` }, text);
const link = (table) => el("a", { href: `#/table/${encodeURIComponent(table)}` }, table);
const showError = (message) => el("div", { class: "error", id: "error" }, message);

function resultTable(columns, rows) {
  const numeric = columns.map((_, i) => rows.length > 0 && rows.every((r) => r[i] === null || typeof r[i] === "number"));
  return el("table", { class: "result" },
    el("thead", {}, el("tr", {}, columns.map((c, i) => el("th", { title: c.type, class: numeric[i] ? "num" : null }, c.name)))),
    el("tbody", {}, rows.map((row) => el("tr", {}, row.map((cell) =>
      el("td", { class: typeof cell === "number" ? "num" : null }, cell === null ? "∅" : typeof cell === "object" ? JSON.stringify(cell) : cell))))));
}

// ---------------------------------------------------------------- home

async function home() {
  const doc = await api("/api/home");
  const tables = doc.tables;
  const stale = tables.filter((t) => t.stale).length;
  const blocked = tables.filter((t) => t.blocked).length;
  const root = el("div", {},
    el("h1", {}, "Tables"),
    el("div", { class: "summary" },
      el("div", { class: "card" }, el("div", { class: "figure", id: "count-tables" }, tables.length), "tables"),
      el("div", { class: "card" }, el("div", { class: "figure", id: "count-breached" }, doc.breached), "with a breached monitor"),
      el("div", { class: "card" }, el("div", { class: "figure", id: "count-stale" }, stale), "stale"),
      el("div", { class: "card" }, el("div", { class: "figure", id: "count-blocked" }, blocked), "last run blocked")),
    el("table", { id: "tables" },
      el("thead", {}, el("tr", {}, ["Table", "State", "Published", "Last run", "Checks", "Rows", "Snapshots", "Monitors"]
        .map((h, i) => el("th", { class: i === 5 || i === 6 ? "num" : null }, h)))),
      el("tbody", {}, tables.map((t) => {
        const run = t.last_run;
        const flags = [];
        if (t.stale) flags.push(badge("STALE", "stale"));
        if (t.blocked) flags.push(badge("BLOCKED", "blocked"));
        if (t.failed) flags.push(badge("FAILED", "failed"));
        if (!flags.length) flags.push(t.ok ? badge("OK", "ok") : badge("BREACHED", "breached"));
        return el("tr", { "data-table": t.table, class: t.ok && !t.blocked && !t.failed ? null : "flagged" },
          el("td", {}, link(t.table), el("div", { class: "muted" }, t.pipeline)),
          el("td", { class: "flags" }, flags),
          el("td", {}, t.age_s === null ? "no snapshot" : `${age(t.age_s)} ago`),
          el("td", {}, run ? [badge(run.status || "running", run.status || "running"), " ",
            el("span", { class: "muted" }, `${age((doc.now_ms - run.started_at_ms) / 1000)} ago`)] : el("span", { class: "muted" }, "none recorded")),
          el("td", {}, run && run.checks && !run.checks.endsWith("/0") ? run.checks : ""),
          el("td", { class: "num" }, number(t.rows)),
          el("td", { class: "num" }, number(t.snapshots)),
          el("td", { class: "monitors" }, t.monitors.length ? t.monitors.map((m) =>
            el("div", {}, badge(m.breached ? "breached" : "ok", m.breached ? "breached" : "ok"), `${m.monitor}: ${m.detail}`)) : "no monitors"));
      }))),
    doc.problems.map((p) => showError(`${p.config}: ${p.error}`)));
  return root;
}

// ---------------------------------------------------------------- a table

function snapshotChart(history, onPick) {
  const snaps = history.slice().reverse(); // oldest first
  const width = 1000, height = 180, top = 10, bottom = 22, left = 50;
  const max = Math.max(1, ...snaps.map((s) => Math.max(s.added_records || 0, s.deleted_records || 0)));
  const anyRemoved = snaps.some((s) => s.deleted_records > 0);
  const zero = anyRemoved ? top + (height - top - bottom) / 2 : height - bottom;
  const scale = (zero - top) / max;
  const step = (width - left) / Math.max(1, snaps.length);
  const bar = Math.max(1, step * 0.7);
  const chart = svg("svg", { class: "chart", id: "snapshot-chart", viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none" },
    svg("line", { class: "axis", x1: left, x2: width, y1: zero, y2: zero }),
    svg("text", { x: 4, y: top + 8 }, number(max)),
    svg("text", { x: 4, y: zero + 3 }, "0"));
  snaps.forEach((s, i) => {
    const x = left + i * step + (step - bar) / 2;
    const up = (s.added_records || 0) * scale, down = (s.deleted_records || 0) * scale;
    if (up) chart.append(svg("rect", { class: "added", x, y: zero - up, width: bar, height: up }));
    if (down) chart.append(svg("rect", { class: "removed", x, y: zero, width: bar, height: down }));
    const pick = svg("rect", { class: "pick", x: left + i * step, y: 0, width: step, height, "data-snapshot": s.snapshot_id },
      svg("title", {}, `snapshot ${s.snapshot_id}\n${s.committed_at}\n${s.operation}: +${number(s.added_records)} −${number(s.deleted_records)} = ${number(s.total_records)} rows`));
    pick.addEventListener("click", () => onPick(s.snapshot_id));
    chart.append(pick);
  });
  if (snaps.length) {
    chart.append(svg("text", { x: left, y: height - 6 }, snaps[0].committed_at));
    chart.append(svg("text", { x: width - 150, y: height - 6 }, snaps[snaps.length - 1].committed_at));
  }
  return chart;
}

async function showRows(name, snapshot, box) {
  box.replaceChildren(el("p", { class: "muted" }, "Loading rows…"));
  try {
    const query = snapshot ? `&snapshot=${encodeURIComponent(snapshot)}` : "";
    const doc = await api(`/api/rows?name=${encodeURIComponent(name)}${query}&n=50`);
    document.querySelectorAll("#snapshot-chart rect.pick").forEach((r) =>
      r.classList.toggle("selected", r.getAttribute("data-snapshot") === String(doc.snapshot_id)));
    box.replaceChildren(
      el("p", { id: "rows-title" }, `Rows at snapshot ${doc.snapshot_id}${doc.is_current ? " (current)" : ""}: `,
        el("strong", { id: "rows-total" }, number(doc.total_records)), " rows",
        doc.truncated ? el("span", { class: "muted" }, ` (first ${doc.rows.length} shown)`) : ""),
      el("div", { class: "scroll" }, resultTable(doc.columns, doc.rows)));
  } catch (e) {
    box.replaceChildren(showError(e.message));
  }
}

async function tablePage(name) {
  const doc = await api(`/api/table?name=${encodeURIComponent(name)}`);
  const d = doc.describe, history = doc.history.history;
  const rowsBox = el("div", { id: "rows" });
  const fields = d.schema.fields;
  const contract = d.contract || {};
  const runs = doc.runs;
  const root = el("div", {},
    el("h1", { id: "table-name" }, doc.table),
    d.contract && contract.description ? el("p", {}, contract.description) : null,
    el("div", { class: "summary" },
      el("div", { class: "card" }, el("div", { class: "figure" }, number(d.row_count)), "rows"),
      el("div", { class: "card" }, el("div", { class: "figure", id: "snapshot-count" }, number(d.snapshot_count)), "snapshots"),
      el("div", { class: "card" }, el("div", { class: "figure" }, number(doc.file_count)), "data files"),
      el("div", { class: "card" }, el("div", { class: "figure" }, d.freshness.age_seconds === null ? "never" : `${age(d.freshness.age_seconds)}`), "since the last commit")),
    el("h2", {}, "Snapshots ", el("span", { class: "muted" }, "rows added (up) and removed (down); click one to see the table as it was")),
    snapshotChart(history, (id) => showRows(doc.table, id, rowsBox)),
    el("div", { class: "scroll" }, el("table", { id: "snapshots" },
      el("thead", {}, el("tr", {}, ["Snapshot", "Committed", "Operation", "Added", "Removed", "Total", ""].map((h) => el("th", {}, h)))),
      el("tbody", {}, history.map((s) => el("tr", {},
        el("td", {}, el("code", {}, s.snapshot_id)), el("td", {}, s.committed_at), el("td", {}, s.operation),
        el("td", { class: "num" }, number(s.added_records)), el("td", { class: "num" }, number(s.deleted_records)),
        el("td", { class: "num" }, number(s.total_records)),
        el("td", {}, el("button", { class: "link", "data-snapshot": s.snapshot_id, onclick: () => showRows(doc.table, s.snapshot_id, rowsBox) },
          s.is_current ? "rows (current)" : "rows then"))))))),
    rowsBox,
    el("div", { class: "grid" },
      el("div", {},
        el("h2", {}, "Schema"),
        el("table", { id: "schema" },
          el("thead", {}, el("tr", {}, ["Column", "Type", "Required", "Doc"].map((h) => el("th", {}, h)))),
          el("tbody", {}, fields.map((f) => el("tr", {}, el("td", {}, el("code", {}, f.name)), el("td", {}, f.type),
            el("td", {}, f.required ? "yes" : ""), el("td", {}, f.doc || ((contract.columns || {})[f.name] || {}).description || "")))))),
      el("div", {},
        el("h2", {}, "Lineage"),
        el("table", { id: "lineage" },
          el("thead", {}, el("tr", {}, el("th", {}, "Upstream"), el("th", {}, "Downstream"))),
          el("tbody", {}, el("tr", {},
            el("td", { id: "upstream" }, doc.lineage.upstream.length ? doc.lineage.upstream.map((t) => el("div", {}, link(t.table), " ", el("span", { class: "muted" }, t.via.join(", ")))) : el("span", { class: "muted" }, "none recorded")),
            el("td", { id: "downstream" }, doc.lineage.downstream.length ? doc.lineage.downstream.map((t) => el("div", {}, link(t.table), " ", el("span", { class: "muted" }, t.via.join(", ")))) : el("span", { class: "muted" }, "none recorded"))))),
        el("h2", {}, "Partitions"),
        el("table", { id: "partitions" },
          el("thead", {}, el("tr", {}, ["Partition", "Files", "Rows", "Bytes"].map((h, i) => el("th", { class: i ? "num" : null }, h)))),
          el("tbody", {}, doc.partitions.map((p) => el("tr", {}, el("td", {}, p.partition || "(unpartitioned)"),
            el("td", { class: "num" }, number(p.files)), el("td", { class: "num" }, number(p.records)), el("td", { class: "num" }, number(p.bytes)))))))),
    el("h2", {}, "Runs and quality ", el("span", { class: "muted" }, "oldest to newest")),
    el("div", { class: "runs-strip", id: "runs-strip" }, runs.slice().reverse().map((r) =>
      el("span", { class: r.status || "running", title: `${r.started_at} ${r.status} ${r.checks || ""}` }))),
    el("div", { class: "scroll" }, el("table", { id: "runs" },
      el("thead", {}, el("tr", {}, ["Started", "Status", "Rows written", "Checks", "Quality", "Run"].map((h) => el("th", {}, h)))),
      el("tbody", {}, runs.map((r) => el("tr", {},
        el("td", {}, r.started_at), el("td", {}, badge(r.status || "running")), el("td", { class: "num" }, number(r.rows_written)),
        el("td", {}, r.checks && !r.checks.endsWith("/0") ? r.checks : ""),
        el("td", {}, Array.isArray(r.quality) ? r.quality.map((q) => badge(`${q.name || q.check || "check"}`, q.passed === false ? "failed" : "passed")) : ""),
        el("td", {}, el("code", { class: "muted" }, r.run_id))))))),
    el("h2", {}, "Files"),
    el("div", { class: "scroll" }, el("table", { id: "files" },
      el("thead", {}, el("tr", {}, ["File", "Partition", "Rows", "Bytes"].map((h, i) => el("th", { class: i > 1 ? "num" : null }, h)))),
      el("tbody", {}, doc.files.map((f) => el("tr", {}, el("td", {}, el("code", {}, f.path.split("/").pop())), el("td", {}, f.partition),
        el("td", { class: "num" }, number(f.records)), el("td", { class: "num" }, number(f.bytes))))))));
  return root;
}

// ---------------------------------------------------------------- SQL

function resultChart(columns, rows) {
  const numeric = columns.findIndex((c, i) => i > 0 && rows.some((r) => typeof r[i] === "number"));
  if (numeric < 0 || rows.length === 0) return null;
  const shown = rows.slice(0, 50);
  const width = 1000, height = 180, bottom = 30, left = 50;
  const max = Math.max(1e-9, ...shown.map((r) => Math.abs(Number(r[numeric]) || 0)));
  const step = (width - left) / shown.length, bar = Math.max(1, step * 0.7);
  const chart = svg("svg", { class: "chart", id: "result-chart", viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: "none" },
    svg("line", { class: "axis", x1: left, x2: width, y1: height - bottom, y2: height - bottom }),
    svg("text", { x: 4, y: 12 }, number(max)));
  shown.forEach((r, i) => {
    const h = (Math.abs(Number(r[numeric]) || 0) / max) * (height - bottom - 10);
    chart.append(svg("rect", { class: "bar", x: left + i * step + (step - bar) / 2, y: height - bottom - h, width: bar, height: h },
      svg("title", {}, `${r[0]}: ${r[numeric]}`)));
    if (shown.length <= 20) chart.append(svg("text", { x: left + i * step + 2, y: height - 12 }, String(r[0]).slice(0, 14)));
  });
  return el("div", {}, el("p", { class: "muted" }, `${columns[numeric].name} by ${columns[0].name}`), chart);
}

let lastSql = "";
function sqlPage() {
  const area = el("textarea", { id: "sql", spellcheck: "false" });
  area.value = lastSql || "SELECT 1 AS one";
  const out = el("div", { id: "output" });
  const run = async () => {
    lastSql = area.value;
    out.replaceChildren(el("p", { class: "muted" }, "Running…"));
    try {
      const doc = await api("/api/query", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ sql: area.value }) });
      out.replaceChildren(
        el("p", { id: "result-summary" }, `${number(doc.row_count)} row(s) in ${doc.duration_ms} ms`, doc.truncated ? ` (the first ${doc.max_rows})` : ""),
        resultChart(doc.columns, doc.rows),
        el("div", { class: "scroll" }, resultTable(doc.columns, doc.rows)));
    } catch (e) {
      out.replaceChildren(showError(e.message));
    }
  };
  area.addEventListener("keydown", (e) => { if ((e.ctrlKey || e.metaKey) && e.key === "Enter") run(); });
  return el("div", {},
    el("h1", {}, "SQL"),
    el("p", { class: "muted" }, "One read-only SELECT or WITH query over the lake's tables (ns.table, or a unique bare name). Ctrl+Enter runs it."),
    area,
    el("div", { class: "toolbar" }, el("button", { id: "run", onclick: run }, "Run")),
    out);
}

// ---------------------------------------------------------------- routing

async function route() {
  const hash = decodeURIComponent(location.hash.replace(/^#/, "")) || "/";
  document.getElementById("nav-home").classList.toggle("active", !hash.startsWith("/sql"));
  document.getElementById("nav-sql").classList.toggle("active", hash.startsWith("/sql"));
  let page;
  try {
    if (hash.startsWith("/table/")) page = await tablePage(hash.slice("/table/".length));
    else if (hash.startsWith("/sql")) page = sqlPage();
    else page = await home();
  } catch (e) {
    page = showError(e.message);
  }
  main().replaceChildren(page);
  document.title = hash.startsWith("/table/") ? `${hash.slice(7)} · ldp` : "ldp";
  document.body.setAttribute("data-ready", hash);
}

window.addEventListener("hashchange", route);
window.addEventListener("DOMContentLoaded", () => {
  document.getElementById("clock").textContent = new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC";
  route();
});
