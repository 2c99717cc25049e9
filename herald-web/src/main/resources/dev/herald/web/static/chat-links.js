/* Herald web chat: the signed-in account's linked chats (list, link with a code from /link, unlink). */
"use strict";

(() => {
  const { el, api } = Herald;
  const $ = (id) => document.getElementById(id);

  async function load() {
    const res = await api("/chat/api/links");
    if (!res.ok) return;
    const items = res.data.links.map((l) => el("li", { dataset: { identity: l.identity } },
      el("span", {}, l.identity + " · since " + new Date(l.linkedAt).toLocaleDateString()),
      el("button", { type: "button", "aria-label": "Unlink " + l.identity, onclick: async () => {
        await api("/chat/api/links/remove", { method: "POST", body: { identity: l.identity } });
        await load();
      } }, "Unlink")));
    $("links-list").replaceChildren(...(items.length ? items : [el("li", { class: "empty" }, "No linked chats yet.")]));
  }

  $("links-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const res = await api("/chat/api/links/add", { method: "POST", body: { code: $("link-code").value } });
    const shown = $("link-result");
    shown.hidden = false;
    shown.textContent = res.ok ? "Linked: " + res.data.identity : (res.data && res.data.error) || "failed (" + res.status + ")";
    if (res.ok) $("link-code").value = "";
    await load();
  });

  $("links-close").addEventListener("click", () => {
    $("link-result").hidden = true;
    $("link-result").textContent = "";
    $("links-dialog").close();
  });

  $("links-open").addEventListener("click", async () => {
    await load();
    $("links-dialog").showModal();
  });

  (async () => {
    const state = await api("/auth/state", { noLogin: true });
    $("links-open").hidden = !(state.ok && state.data.user && state.data.user.account);
  })();
})();
