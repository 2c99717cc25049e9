/* Herald admin dashboard: the users panel (list with each account's usage, add, disable or enable, reset a password, sign
   out everywhere). */
"use strict";

(() => {
  const { el, api } = Herald;
  const $ = (id) => document.getElementById(id);

  /** "3 turns · 1,200 / 340 tokens": a usage figure of the users list. */
  function usage(figure) {
    if (!figure) return "";
    const n = (v) => Number(v).toLocaleString("en-US");
    return n(figure.turns) + (figure.turns === 1 ? " turn" : " turns") + " · " + n(figure.inputTokens) + " / "
      + n(figure.outputTokens) + " tokens";
  }

  function row(u) {
    const b = (label, action, extra) => el("button", { type: "button", onclick: () => act(action, u.name, extra),
      "aria-label": label + " " + u.name }, label);
    return el("tr", { dataset: { user: u.name } },
      el("td", {}, u.name),
      el("td", {}, u.role),
      el("td", {}, el("span", { class: "pill " + (u.disabled ? "bad" : u.invitedUntil !== undefined ? "" : "running") },
        u.disabled ? "disabled" : u.invitedUntil !== undefined ? "invited" + (u.invitedUntil ? " (link until "
          + u.invitedUntil.slice(0, 10) + ")" : "") : "active")),
      el("td", { class: "usage-today" }, usage(u.usage && u.usage.today)),
      el("td", { class: "usage-window" }, usage(u.usage && u.usage.last30Days)),
      el("td", { class: "row-actions" },
        u.disabled ? b("Enable", "enable") : b("Disable", "disable"),
        b("Reset password", "reset"),
        b("Sign out everywhere", "sign-out")));
  }

  async function load() {
    const [users, state] = await Promise.all([api("/admin/api/users"), api("/auth/state", { noLogin: true })]);
    $("users-setup").hidden = !(state.ok && state.data.setup && !state.data.accounts);
    if (!users.ok) {
      $("users").replaceChildren(el("tr", {}, el("td", { colspan: 6, class: "empty" },
        "Users could not be loaded: " + ((users.data && users.data.error) || users.status))));
      return;
    }
    const rows = users.data.users.map(row);
    $("users").replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 6, class: "empty" }, "No accounts yet. Until the first one, these pages have one user."))]));
  }

  function flash(res, done) {
    $("flash").textContent = res.ok ? done : (res.data && res.data.error) || "failed (" + res.status + ")";
  }

  async function act(action, name) {
    const body = { name };
    if (action === "reset") {
      const password = prompt("New password for " + name + " (8 characters or more); their sessions end:");
      if (!password) return;
      body.password = password;
    }
    if (action === "disable" && !confirm("Disable " + name + "? They are signed out everywhere and cannot sign in.")) return;
    const res = await api("/admin/api/users/" + action, { method: "POST", body });
    flash(res, action.replace("-", " ") + ": " + name);
    await load();
  }

  async function loadKeys() {
    const res = await api("/admin/api/keys");
    if (!res.ok) return;
    const rows = res.data.keys.map((k) => el("tr", { dataset: { key: k.id } },
      el("td", {}, k.id + (k.label ? " · " + k.label : "")),
      el("td", {}, k.owner),
      el("td", {}, String(k.uses)),
      el("td", {}, k.revoked ? "revoked" : k.lastUsedAt ? Herald.since(k.lastUsedAt) : "never"),
      el("td", { class: "row-actions" }, k.revoked ? null : el("button", { type: "button", "aria-label": "Revoke " + k.id,
        onclick: async () => {
          if (!confirm("Revoke API key " + k.id + " of " + k.owner + "?")) return;
          flash(await api("/admin/api/keys/revoke", { method: "POST", body: { id: k.id } }), "revoked: " + k.id);
          await loadKeys();
        } }, "Revoke"))));
    $("api-keys").replaceChildren(...(rows.length ? rows
      : [el("tr", {}, el("td", { colspan: 5, class: "empty" }, "No API keys. Each account makes its own in the web chat."))]));
  }

  $("user-create").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const body = { name: $("user-name").value.trim(), role: $("user-role").value, password: $("user-password").value };
    const res = await api("/admin/api/users/create", { method: "POST", body });
    flash(res, "added: " + body.name + " (" + body.role + ")");
    if (res.ok) form.reset();
    await load();
  });

  $("user-invite").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const body = { name: $("invite-name").value.trim(), role: $("invite-role").value };
    const res = await api("/admin/api/users/invite", { method: "POST", body });
    flash(res, "invited: " + body.name + " (" + body.role + ")");
    const shown = $("invite-link");
    if (res.ok) {
      const link = location.origin + res.data.link;
      shown.replaceChildren("Send this link to " + body.name + " (it works once, until " + res.data.expiresAt.slice(0, 10)
        + "; it is shown only now): ", el("code", { id: "invite-url" }, link));
      shown.hidden = false;
      form.reset();
    }
    await load();
  });

  $("users-first-admin").addEventListener("click", async () => {
    await Herald.login("", "setup");
    location.reload();
  });

  (async () => {
    await Herald.ensureAccess();
    await load();
    await loadKeys();
    setInterval(loadKeys, 10000);
  })();
})();
