/* Herald admin dashboard: status, platforms, figures, sessions and their actions, transcripts. */
"use strict";

(() => {
  const { el, api } = Herald;
  const $ = (id) => document.getElementById(id);
  const REFRESH_MS = 5000;

  /** A message under the header; a load failure's message goes away by itself once loading works again. */
  function flash(text, fromLoad = false) {
    $("flash").textContent = text;
    $("flash").dataset.load = fromLoad ? "1" : "";
  }

  function loaded() {
    if ($("flash").dataset.load) flash("");
  }

  function duration(seconds) {
    const d = Math.floor(seconds / 86400), h = Math.floor((seconds % 86400) / 3600), m = Math.floor((seconds % 3600) / 60);
    return d ? d + " d " + h + " h" : h ? h + " h " + m + " min" : m ? m + " min" : seconds + " s";
  }

  async function loadStatus() {
    const res = await api("/admin/api/status");
    if (!res.ok) {
      $("gateway-state").className = "pill bad";
      $("gateway-state").textContent = res.status === 0 ? "unreachable" : "error " + res.status;
      flash(res.status === 0 ? "Herald cannot be reached; retrying every " + REFRESH_MS / 1000 + " s." : "Status could not be loaded (" + res.status + ").", true);
      return;
    }
    loaded();
    const s = res.data;
    $("gateway-state").className = "pill " + s.state;
    $("gateway-state").textContent = s.state + (s.restoring ? " (restoring)" : "");
    $("gateway-meta").textContent = "up " + duration(s.uptimeSeconds) + " · agent " + s.agent
      + (s.autoResume ? "" : " · auto-resume OFF (crash-loop breaker)");
    const store = s.store || { writable: true };
    $("store-health").hidden = store.writable && !store.warning;
    $("store-health").textContent = !store.writable
      ? "The store cannot write since " + store.since + ": " + store.problem + ". New messages are not taken until it can."
      : store.warning ? "Store warning: " + store.warning : "";
    $("last-error").hidden = !s.lastError;
    $("last-error").textContent = s.lastError
      ? "Last turn error (" + s.lastError.at + ", " + s.lastError.session + "): " + s.lastError.detail : "";
    const f = s.figures;
    $("fig-turns-per-minute").textContent = f.turnsPerMinute;
    $("fig-active").textContent = f.activeTurns;
    $("fig-waiting").textContent = f.waitingTurns;
    $("fig-claimed").textContent = f.claimedLanes;
    $("fig-resume").textContent = f.resumePending ?? "–";
    $("fig-sessions").textContent = f.sessionsStored ?? "–";
    $("fig-undelivered").textContent = f.undeliveredReplies ?? "–";
    $("platforms").replaceChildren(...s.platforms.map((p) => el("tr", {},
      el("td", {}, p.id),
      el("td", {}, el("span", { class: "pill " + p.state }, p.state.replace("_", " "))),
      el("td", {}, p.detail || ""))));
    $("nodes").replaceChildren(...(s.nodes || []).map((n) => el("tr", {},
      el("td", {}, n.id + (n.self ? " (this page's)" : "")),
      el("td", {}, el("span", { class: "pill " + (n.state === "running" ? "connected" : n.state === "draining" ? "warn" : "stopped") }, n.state)),
      el("td", {}, n.process),
      el("td", {}, n.state === "gone" ? "" : n.sessions + " session(s), " + n.runningTurns + " running"),
      el("td", {}, n.heartbeatAgeSeconds == null || n.state === "gone" ? "" : Herald.ago(n.heartbeatAgeSeconds)
        + (n.leaseLeftSeconds < 0 ? " (lease ran out)" : "")))));
  }

  function stateCell(s) {
    const badge = el("span", { class: "pill " + (s.state === "resume_pending" ? "warn" : s.state) }, s.state.replace("_", " "));
    const reasons = [];
    if (s.resumePending) reasons.push("resume: " + s.resumeReason + " · marked " + Herald.ago(s.resumeAgeSeconds));
    if (s.suspended) reasons.push("suspended: " + s.suspendDetail + (s.suspendedAgeSeconds == null ? "" : " · " + Herald.ago(s.suspendedAgeSeconds)));
    if (s.interruptedRestarts) reasons.push(s.interruptedRestarts + " interrupted restart(s) in a row");
    return el("td", {}, badge, reasons.map((r) => el("span", { class: "reason" }, r)));
  }

  function actionsCell(s) {
    const b = (label, onclick, enabled = true) => el("button", { type: "button", onclick, disabled: !enabled, "aria-label": label + " " + s.key }, label);
    return el("td", { class: "row-actions" },
      b("Transcript", () => showTranscript(s.key)),
      b("Resume now", () => act("resume-now", s.key), s.resumePending && !s.running),
      b("Clear resume mark", () => act("clear-resume", s.key), s.resumePending),
      s.suspended ? b("Unsuspend", () => act("unsuspend", s.key)) : b("Suspend", () => act("suspend", s.key)),
      b("Purge", () => purge(s.key), !s.running));
  }

  /** Purge: after a confirmation, the session's transcript is deleted for good and its row leaves the list. */
  async function purge(key) {
    if (!confirm("Purge " + key + "? Its transcript, turns and model choice are deleted for good; this cannot be undone.")) return;
    if ($("transcript-key").textContent.startsWith(key + " ")) $("transcript-panel").hidden = true;
    await act("purge", key);
  }

  async function loadSessions() {
    const q = $("search").value.trim();
    const state = $("state-filter").value;
    const res = await api("/admin/api/sessions?state=" + encodeURIComponent(state) + "&q=" + encodeURIComponent(q));
    if (!res.ok) {
      flash("Sessions could not be loaded: " + ((res.data && res.data.error) || res.status), true);
      return;
    }
    loaded();
    const rows = res.data.sessions.map((s) => el("tr", { dataset: { key: s.key } },
      el("td", {}, el("div", {}, s.title || s.chatId || "(untitled)", s.hidden ? el("span", { class: "reason" }, "deleted from the chat list (transcript kept)") : null),
        el("div", { class: "key" }, s.key)),
      stateCell(s),
      el("td", {}, Herald.since(s.updatedAt)),
      actionsCell(s)));
    $("sessions").replaceChildren(...(rows.length ? rows : [el("tr", {}, el("td", { colspan: 4, class: "empty" }, "No sessions match."))]));
  }

  async function act(action, key) {
    const res = await api("/admin/api/sessions/" + action, { method: "POST", body: { key } });
    flash(res.ok ? action.replace("-", " ") + ": done for " + key : (res.data && (res.data.message || res.data.error)) || "failed (" + res.status + ")");
    await Promise.all([loadSessions(), loadStatus()]);
  }

  async function showTranscript(key) {
    const res = await api("/admin/api/transcript?key=" + encodeURIComponent(key));
    if (!res.ok) {
      flash((res.data && res.data.error) || "transcript failed (" + res.status + ")");
      return;
    }
    $("transcript-key").textContent = key + " · session " + res.data.sessionId;
    const download = (format, label) => el("a", { class: "download", href: "/admin/api/export?key=" + encodeURIComponent(key)
      + "&format=" + format, download: "" }, label);
    $("transcript-downloads").replaceChildren(download("markdown", "Download (Markdown)"), " ", download("jsonl", "Download (JSON lines)"));
    $("transcript").replaceChildren(...(res.data.rows.length ? res.data.rows.map(transcriptRow) : [el("p", { class: "empty" }, "No messages yet.")]));
    $("transcript-panel").hidden = false;
    $("transcript").focus();
  }

  /** One row; a row the gateway wrote (a resumed turn, a compression summary) is a system event, not a user message. */
  function transcriptRow(r) {
    if (r.event) {
      const what = r.event === "summary" ? "earlier messages summarized to fit the model's context"
        : "turn resumed after a gateway restart or crash";
      return el("div", { class: "row event" }, el("span", { class: "role" }, "system event · #" + r.seq), what,
        el("details", {}, el("summary", {}, "note sent to the model"), el("pre", {}, r.text)));
    }
    return el("div", { class: "row " + r.role + (r.omitted ? " omitted" : "") },
      el("span", { class: "role" }, r.role + (r.toolName ? " · " + r.toolName : "") + " · #" + r.seq
        + (r.omitted ? " · not seen by the model (" + r.omitted + ")" : "")),
      r.text || "",
      (r.tools || []).map((t) => el("div", {}, el("code", {}, t.name + " " + t.args))));
  }

  $("transcript-close").addEventListener("click", () => ($("transcript-panel").hidden = true));
  $("filters").addEventListener("submit", (e) => {
    e.preventDefault();
    loadSessions();
  });
  $("state-filter").addEventListener("change", loadSessions);
  $("restart").addEventListener("click", async () => {
    if (!confirm("Restart Herald? Running turns drain first; interrupted ones resume after the restart.")) return;
    const res = await api("/admin/api/restart", { method: "POST" });
    flash(res.ok ? "Restarting: running turns drain first; the figures come back when Herald is up again." : (res.data && res.data.error) || "restart failed");
  });

  (async () => {
    await Herald.ensureAccess();
    await Promise.all([loadStatus(), loadSessions()]);
    setInterval(() => {
      loadStatus();
      if (document.activeElement !== $("search")) loadSessions();
    }, REFRESH_MS);
  })();
})();
