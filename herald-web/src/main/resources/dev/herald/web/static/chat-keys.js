/* Herald web chat: the signed-in account's API keys (list, make: shown once, revoke). */
"use strict";

(() => {
  const { el, api } = Herald;
  const $ = (id) => document.getElementById(id);

  async function load() {
    const res = await api("/chat/api/keys");
    if (!res.ok) return;
    $("keys-list").replaceChildren(...res.data.keys.map((k) => el("li", { dataset: { key: k.id } },
      el("span", {}, k.id + (k.label ? " · " + k.label : "") + " · " + (k.revoked ? "revoked" : k.uses + " uses")),
      k.revoked ? null : el("button", { type: "button", "aria-label": "Revoke " + k.id, onclick: async () => {
        await api("/chat/api/keys/revoke", { method: "POST", body: { id: k.id } });
        await load();
      } }, "Revoke"))));
  }

  $("keys-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const res = await api("/chat/api/keys/create", { method: "POST", body: { label: $("key-label").value } });
    const shown = $("key-new");
    shown.hidden = false;
    shown.textContent = res.ok ? "New key (copy it now, it is not shown again): " + res.data.key
      : (res.data && res.data.error) || "failed (" + res.status + ")";
    $("key-label").value = "";
    await load();
  });

  $("keys-close").addEventListener("click", () => {
    $("key-new").hidden = true;
    $("key-new").textContent = "";
    $("keys-dialog").close();
  });

  $("api-keys-open").addEventListener("click", async () => {
    await load();
    $("keys-dialog").showModal();
  });

  (async () => {
    const state = await api("/auth/state", { noLogin: true });
    $("api-keys-open").hidden = !(state.ok && state.data.user && state.data.user.account);
  })();
})();
