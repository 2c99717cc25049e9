/* Herald web chat: the signed-in account changes its own password (the current one, the new one twice). Its other
   sessions end; this page stays signed in. An account of single sign-on is told to change it at its provider. */
"use strict";

(() => {
  const { api } = Herald;
  const $ = (id) => document.getElementById(id);

  function clear() {
    for (const id of ["password-current", "password-new", "password-again"]) $(id).value = "";
  }

  $("password-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = $("password-result");
    if ($("password-new").value !== $("password-again").value) {
      result.textContent = "The two new passwords differ; type the same new password twice.";
      return;
    }
    const res = await api("/auth/password", { method: "POST", body: {
      current: $("password-current").value, password: $("password-new").value, again: $("password-again").value } });
    clear();
    result.textContent = res.ok ? "Password changed. Your other sessions are signed out; this one goes on."
      : (res.data && res.data.error) || "failed (" + res.status + ")";
    result.classList.toggle("ok", res.ok);
  });

  $("password-close").addEventListener("click", () => {
    clear();
    $("password-result").textContent = "";
    $("password-dialog").close();
  });

  $("password-open").addEventListener("click", async () => {
    const res = await api("/auth/state", { noLogin: true });
    const state = res.ok ? res.data : null;
    const sso = state && state.user && !state.user.password;
    $("password-sso").hidden = !sso;
    $("password-sso").textContent = sso ? "Your account signs in through " + (state.oidc ? state.oidc.label : "single sign-on")
      + " and has no Herald password: change your password there." : "";
    $("password-fields").hidden = sso;
    $("password-save").hidden = sso;
    for (const id of ["password-current", "password-new", "password-again"]) $(id).required = !sso;
    $("password-dialog").showModal();
  });

  (async () => {
    const res = await api("/auth/state", { noLogin: true });
    $("password-open").hidden = !(res.ok && res.data.user && res.data.user.account);
  })();
})();
