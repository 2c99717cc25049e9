/* Herald pages: shared helpers (no framework, no build step). */
"use strict";

const Herald = (() => {
  /** Creates an element; text children become text nodes (never HTML). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "dataset") Object.assign(node.dataset, v);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  let loginWaiters = null;

  /** The sign-in form for what this Herald asks: its key, an account, or the first admin (setup). */
  function loginFields(form, mode, oidc) {
    const field = (id, label, attrs) => [el("label", { for: id }, label), el("input", Object.assign({ id, required: true }, attrs))];
    const parts = mode === "key"
      ? [el("h2", { id: "login-title" }, "Herald key"),
         el("p", {}, "This Herald asks for its key (platforms.api_server.key). It is kept for this browser session only."),
         ...field("login-key", "Key", { name: "key", type: "password", autocomplete: "current-password" })]
      : mode === "setup"
      ? [el("h2", { id: "login-title" }, "Create the first admin"),
         el("p", {}, "No admin account exists yet. From this machine no code is needed; from elsewhere enter the setup code "
           + "Herald printed in its log at start."),
         ...field("login-name", "Name", { name: "name", autocomplete: "username", pattern: "[a-z0-9_\\-]{1,32}" }),
         ...field("login-password", "Password (8 characters or more)", { name: "password", type: "password", autocomplete: "new-password", minlength: "8" }),
         el("label", { for: "login-code" }, "Setup code (only from another machine)"),
         el("input", { id: "login-code", name: "code", autocomplete: "off" })]
      : mode === "invite"
      ? [el("h2", { id: "login-title" }, "Welcome to Herald, " + invitation().name),
         el("p", {}, "Choose the password for your account " + invitation().name + ". The invitation link works once."),
         ...field("login-password", "Password (8 characters or more)", { name: "password", type: "password", autocomplete: "new-password", minlength: "8" }),
         ...field("login-repeat", "The same password again", { name: "repeat", type: "password", autocomplete: "new-password", minlength: "8" })]
      : [el("h2", { id: "login-title" }, "Sign in to Herald"),
         ...field("login-name", "Name", { name: "name", autocomplete: "username" }),
         ...field("login-password", "Password", { name: "password", type: "password", autocomplete: "current-password" })];
    form.replaceChildren(...parts, el("p", { class: "login-error", role: "alert" }),
      el("button", { type: "submit", class: "primary" }, mode === "setup" || mode === "invite" ? "Create and sign in"
        : mode === "key" ? "Log in" : "Sign in"));
    if (oidc && mode === "account") {
      // single sign-on: a plain link, so the browser itself goes to the provider and back
      form.append(el("p", { class: "meta" }, "or"),
        el("a", { href: oidc.start, id: "oidc-sign-in", class: "button primary" }, "Sign in with " + oidc.label));
    }
  }

  /** The invitation in this page's address ({@code #invite=<name>.<code>}), or null. */
  function invitation() {
    const m = /^#invite=([a-z0-9_-]{1,32})\.([A-Za-z0-9_-]{10,100})$/.exec(location.hash);
    return m ? { name: m[1], code: m[2] } : null;
  }

  /** Shows the sign-in dialog once; resolves when the browser holds a session cookie. */
  function login(message, forcedMode) {
    if (loginWaiters) return loginWaiters.promise;
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    loginWaiters = { promise };
    const dialog = document.getElementById("login");
    const form = dialog.querySelector("form");
    (async () => {
      const state = await api("/auth/state", { noLogin: true });
      const d = (state.ok && state.data) || {};
      const mode = forcedMode || (d.accounts ? "account" : d.keyRequired ? "key" : "setup");
      loginFields(form, mode, d.oidc);
      const error = form.querySelector(".login-error");
      error.textContent = message || "";
      const onSubmit = async (event) => {
        event.preventDefault();
        const body = {};
        for (const input of form.querySelectorAll("input")) body[input.name] = input.value;
        if (mode === "invite") {
          if (body.password !== body.repeat) {
            error.textContent = "The two passwords differ; type the same password twice.";
            return;
          }
          delete body.repeat;
          Object.assign(body, invitation());
        }
        const path = mode === "setup" ? "/auth/setup" : mode === "invite" ? "/auth/invite" : "/auth/login";
        const res = await api(path, { method: "POST", body, noLogin: true });
        if (res.ok && mode === "invite") history.replaceState(null, "", location.pathname + location.search);
        if (res.ok) {
          form.removeEventListener("submit", onSubmit);
          form.replaceChildren();
          dialog.close();
          loginWaiters = null;
          resolve();
        } else {
          error.textContent = (res.data && res.data.error) || "Sign-in failed (" + res.status + ")";
        }
      };
      form.addEventListener("submit", onSubmit);
      if (!dialog.open) dialog.showModal();
      const first = form.querySelector("input");
      if (first) first.focus();
    })();
    return promise;
  }

  /**
   * Calls a JSON endpoint of this server. POSTs carry the anti-CSRF header. A 401 shows the key dialog
   * and retries once logged in. Never throws for HTTP errors: returns {ok, status, data}; a network
   * failure returns status 0.
   */
  async function api(path, options = {}) {
    const init = { method: options.method || "GET", credentials: "same-origin", headers: { Accept: "application/json" } };
    if (init.method !== "GET") {
      init.headers["X-Herald-Csrf"] = "1";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(options.body || {});
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (e) {
      return { ok: false, status: 0, data: { error: "Herald cannot be reached" } };
    }
    let data = null;
    try {
      data = await res.json();
    } catch (e) {
      data = null;
    }
    if (res.status === 401 && !options.noLogin) {
      await login();
      return api(path, options);
    }
    return { ok: res.ok, status: res.status, data };
  }

  /**
   * Asks up front for what this browser lacks: the key, an account's sign-in, or (no admin yet, on a page that would
   * otherwise be open) the first admin. Returns the state, with who is signed in ({@code data.user}).
   */
  async function ensureAccess() {
    let res = await api("/auth/state", { noLogin: true });
    if (invitation()) { // an invitation link: its form first, even in a browser signed in as someone else
      await login("", "invite");
      res = await api("/auth/state", { noLogin: true });
    } else if (res.ok && !res.data.loggedIn && (res.data.keyRequired || res.data.accounts)) {
      await login();
      res = await api("/auth/state", { noLogin: true });
    }
    showUser(res.ok ? res.data.user : null);
    return res;
  }

  /** Shows who is signed in, with a sign-out button, in the element #signed-in when the page has one. */
  function showUser(user) {
    const slot = document.getElementById("signed-in");
    if (!slot || !user || !user.account) return;
    slot.replaceChildren(el("span", { class: "meta" }, user.name + (user.role === "admin" ? " (admin)" : "")),
      el("button", { type: "button", id: "sign-out", onclick: async () => {
        const out = await api("/auth/logout", { method: "POST", noLogin: true });
        // single sign-on may end the provider's session too: the provider then sends the browser back here
        if (out.ok && out.data && typeof out.data.signOutAt === "string" && /^https?:\/\//.test(out.data.signOutAt)) {
          location.assign(out.data.signOutAt);
        } else {
          location.reload();
        }
      } }, "Sign out"));
    slot.hidden = false;
    for (const id of ["api-keys-open", "links-open", "password-open"]) { // the chat's API keys, linked chats, password: accounts only
      const button = document.getElementById(id);
      if (button) button.hidden = false;
    }
  }

  function ago(seconds) {
    if (seconds === null || seconds === undefined) return "";
    if (seconds < 90) return seconds + " s ago";
    if (seconds < 5400) return Math.round(seconds / 60) + " min ago";
    if (seconds < 172800) return Math.round(seconds / 3600) + " h ago";
    return Math.round(seconds / 86400) + " days ago";
  }

  function since(iso) {
    if (!iso) return "";
    return ago(Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000)));
  }

  /** A random id of letters and digits (works where crypto.randomUUID does not: plain http on a LAN). */
  function randomId(prefix) {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return prefix + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  return { el, api, login, ensureAccess, ago, since, randomId };
})();
