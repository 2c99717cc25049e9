/*
 * Herald web chat: the conversation list. Searching it by title, renaming and deleting the open conversation,
 * and, below 720 px, the drawer it lives in (opened by the menu button; closed by ✕, the backdrop, Escape or
 * choosing a conversation).
 *
 * The list is the browser's own (localStorage, kept by chat.js) merged with the conversations the server
 * knows: the server's title wins when it has one (a rename made in another browser), and a conversation the
 * server lists as deleted (hidden) leaves the list. A title is stored on the server at once when the
 * conversation is stored there already; otherwise it goes with the conversation's first message.
 */
"use strict";

const HeraldSidebar = (ctx) => {
  const { el, api } = Herald;
  const $ = (id) => document.getElementById(id);
  const { store, save, conversation } = ctx;

  function render() {
    const query = $("conversation-search").value.trim().toLowerCase();
    const shown = store.conversations.filter((c) => !query || (c.title || "New conversation").toLowerCase().includes(query));
    $("conversations").replaceChildren(...shown.map((c) => el("li", {},
      el("button", {
        type: "button", class: "conversation", "aria-current": c.id === ctx.current() ? "page" : null,
        onclick: () => { ctx.open(c.id); closeMenu(); },
      }, el("span", { class: "conv-title" }, c.title || "New conversation"),
      el("span", { class: "conv-time" }, Herald.since(c.updatedAt))))));
    $("no-match").hidden = shown.length > 0 || !query;
  }

  async function refresh() {
    const res = await api("/chat/api/conversations");
    if (!res.ok) return;
    for (const s of res.data.conversations) {
      const c = conversation(s.id);
      if (s.hidden) {
        if (c && s.id !== ctx.current()) store.conversations.splice(store.conversations.indexOf(c), 1);
      } else if (c) {
        c.updatedAt = s.updatedAt;
        if (s.title) c.title = s.title;
      } else {
        store.conversations.push({ id: s.id, title: s.title || "", updatedAt: s.updatedAt });
      }
    }
    store.conversations.sort((a, b) => (b.updatedAt || "").localeCompare(a.updatedAt || ""));
    save();
    render();
    const c = conversation(ctx.current());
    if (c && c.title) $("title").textContent = c.title;
  }

  function rename() {
    const c = conversation(ctx.current());
    $("rename-input").value = (c && c.title) || "";
    $("rename-dialog").showModal();
    $("rename-input").select();
  }

  async function saveTitle(e) {
    e.preventDefault();
    const title = $("rename-input").value.trim().slice(0, 200);
    $("rename-dialog").close();
    const c = conversation(ctx.current());
    if (!c || !title) return;
    c.title = title;
    save();
    $("title").textContent = title;
    render();
    const res = await api("/chat/api/rename", { method: "POST", body: { conversation: c.id, title } });
    if (!res.ok) ctx.notice("The new title was not saved: " + ((res.data && res.data.error) || res.status));
  }

  async function remove() {
    const c = conversation(ctx.current());
    if (!c || !confirm("Delete \u201c" + (c.title || "New conversation") + "\u201d from the list? Its transcript is kept for the admin.")) return;
    const res = await api("/chat/api/delete", { method: "POST", body: { conversation: c.id } });
    if (!res.ok) {
      ctx.notice("The conversation was not deleted: " + ((res.data && res.data.error) || res.status));
      return;
    }
    store.conversations.splice(store.conversations.indexOf(c), 1);
    store.outbox = store.outbox.filter((m) => m.conversation !== c.id);
    save();
    ctx.open((store.conversations[0] && store.conversations[0].id) || ctx.newConversation().id);
  }

  function openMenu() {
    document.body.classList.add("menu-open");
    $("backdrop").hidden = false;
    $("menu").setAttribute("aria-expanded", "true");
    $("conversation-search").focus();
  }

  function closeMenu() {
    if (!document.body.classList.contains("menu-open")) return;
    document.body.classList.remove("menu-open");
    $("backdrop").hidden = true;
    $("menu").setAttribute("aria-expanded", "false");
  }

  $("new-conversation").addEventListener("click", () => {
    ctx.open(ctx.newConversation().id);
    closeMenu();
  });
  $("conversation-search").addEventListener("input", render);
  $("menu").addEventListener("click", openMenu);
  $("close-menu").addEventListener("click", closeMenu);
  $("backdrop").addEventListener("click", closeMenu);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") closeMenu();
  });
  // below 720 px the conversation's actions are a menu under the ⋯ button: closed by choosing one, a tap elsewhere or Escape
  function setActionsOpen(open) {
    document.body.classList.toggle("actions-open", open);
    $("more").setAttribute("aria-expanded", String(open));
  }
  $("more").addEventListener("click", (e) => {
    e.stopPropagation();
    setActionsOpen(!document.body.classList.contains("actions-open"));
  });
  $("actions").addEventListener("click", () => setActionsOpen(false));
  document.addEventListener("click", (e) => {
    if (!$("actions").contains(e.target)) setActionsOpen(false);
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape") setActionsOpen(false);
  });
  $("rename").addEventListener("click", rename);
  $("rename-dialog").querySelector("form").addEventListener("submit", saveTitle);
  $("rename-cancel").addEventListener("click", () => $("rename-dialog").close());
  $("delete").addEventListener("click", remove);

  return { render, refresh };
};
