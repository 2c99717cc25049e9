/* Herald admin dashboard: the scheduled jobs panel (list, pause, resume, run now, delete). */
"use strict";

(() => {
  const { el, api } = Herald;
  const $ = (id) => document.getElementById(id);
  const REFRESH_MS = 5000;

  function when(iso, zone) {
    if (!iso) return "";
    const d = new Date(iso);
    try {
      return d.toLocaleString(undefined, { timeZone: zone, dateStyle: "medium", timeStyle: "short" }) + " (" + zone + ")";
    } catch (e) {
      return iso;
    }
  }

  // a run cut off by a restart and resumed shows "resumed, " before how it ended
  function outcomeClass(outcome) {
    if (outcome && outcome.startsWith("resumed, ")) return outcomeClass(outcome.substring("resumed, ".length));
    if (outcome === "ok") return "ok";
    if (outcome === "started") return "running";
    if (["failed", "refused", "undeliverable", "cancelled"].includes(outcome)) return "bad";
    return outcome ? "warn" : "";
  }

  // a job's own model profile and tool list, when it sets them ("tools none" is an empty list)
  function options(j) {
    const parts = [];
    if (j.model) parts.push("model " + j.model);
    if (j.tools) parts.push("tools " + (j.tools.length ? j.tools.join(", ") : "none"));
    return parts.join(" · ");
  }

  function row(j) {
    const b = (label, action, enabled = true) => el("button", { type: "button", onclick: () => act(action, j.id), disabled: !enabled,
      "aria-label": label + " " + j.id }, label);
    return el("tr", { dataset: { job: j.id } },
      el("td", {}, el("div", {}, j.id), el("div", { class: "key" }, j.definedBy + (j.createdBy ? " · " + j.createdBy : ""))),
      el("td", {}, el("div", {}, el("code", {}, j.schedule)), el("div", { class: "key" }, j.timeZone + " · misfire " + j.misfire)),
      el("td", {}, el("div", {}, j.target), el("div", { class: "key" }, j.user ? "as " + j.user : "")),
      el("td", {}, el("span", { class: "pill " + (j.status === "active" ? "running" : "warn") }, j.status),
        el("span", { class: "reason" }, j.nextRunAt ? "next " + when(j.nextRunAt, j.timeZone) : "no next run")),
      el("td", {}, j.lastOutcome ? el("span", { class: "pill " + outcomeClass(j.lastOutcome) }, j.lastOutcome) : "not run yet",
        j.lastRunAt ? el("span", { class: "reason" }, when(j.lastRunAt, j.timeZone)) : null),
      el("td", {}, el("div", {}, j.prompt), options(j) ? el("div", { class: "key" }, options(j)) : null),
      el("td", { class: "row-actions" },
        b("Run now", "run-now"),
        j.status === "paused" ? b("Resume", "resume") : b("Pause", "pause", j.status === "active"),
        b("Delete", "delete")));
  }

  async function load() {
    const res = await api("/admin/api/schedules");
    $("schedules-panel").hidden = res.status === 404; // a Herald without the scheduler (an embedding, a test) has no panel
    if (res.status === 404) return;
    if (!res.ok) {
      $("schedules").replaceChildren(el("tr", {}, el("td", { colspan: 7, class: "empty" },
        "Scheduled jobs could not be loaded: " + ((res.data && res.data.error) || res.status))));
      return;
    }
    const rows = res.data.jobs.map(row);
    $("schedules").replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 7, class: "empty" }, "No scheduled jobs. Define them under schedules: in config.yaml, or with /schedule add in a chat."))]));
  }

  async function act(action, id) {
    if (action === "delete" && !confirm("Delete scheduled job " + id + "? A job from config.yaml comes back at the next start.")) return;
    const res = await api("/admin/api/schedules/" + action, { method: "POST", body: { id } });
    $("flash").textContent = res.ok ? action.replace("-", " ") + ": " + ((res.data && res.data.message) || "done") + " (" + id + ")"
      : (res.data && (res.data.message || res.data.error)) || action + " failed (" + res.status + ")";
    await load();
  }

  (async () => {
    await Herald.ensureAccess();
    await load();
    setInterval(load, REFRESH_MS);
  })();
})();
