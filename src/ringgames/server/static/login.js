"use strict";
// The log-in and sign-up forms: POST /api/session or /api/account, then back to the lobby.
function accountForm(formId, path, nameId, passwordId, errId) {
  document.getElementById(formId).addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const err = document.getElementById(errId);
    err.textContent = "";
    try {
      await api(path, {method: "POST", json: {username: document.getElementById(nameId).value.trim(),
                                              password: document.getElementById(passwordId).value}});
      location.href = "/";
    } catch (e) {
      err.textContent = errorText(e);
    }
  });
}
document.addEventListener("DOMContentLoaded", () => {
  accountForm("login-form", "/api/session", "login-name", "login-password", "login-err");
  accountForm("signup-form", "/api/account", "signup-name", "signup-password", "signup-err");
});
