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

  /** Shows the key dialog once; resolves when the browser holds a session cookie. */
  function login(message) {
    if (loginWaiters) return loginWaiters.promise;
    let resolve;
    const promise = new Promise((r) => (resolve = r));
    loginWaiters = { promise };
    const dialog = document.getElementById("login");
    const form = dialog.querySelector("form");
    const input = dialog.querySelector("input[name=key]");
    const error = dialog.querySelector(".login-error");
    error.textContent = message || "";
    const onSubmit = async (event) => {
      event.preventDefault();
      const res = await api("/auth/login", { method: "POST", body: { key: input.value }, noLogin: true });
      if (res.ok) {
        input.value = "";
        form.removeEventListener("submit", onSubmit);
        dialog.close();
        loginWaiters = null;
        resolve();
      } else {
        error.textContent = (res.data && res.data.error) || "Login failed (" + res.status + ")";
        input.select();
      }
    };
    form.addEventListener("submit", onSubmit);
    if (!dialog.open) dialog.showModal();
    input.focus();
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

  /** Asks for the key up front when one is required and this browser has no session. */
  async function ensureAccess() {
    const res = await api("/auth/state", { noLogin: true });
    if (res.ok && res.data.keyRequired && !res.data.loggedIn) await login();
    return res;
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
