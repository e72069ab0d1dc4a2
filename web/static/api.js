// The table service's HTTP API (docs/http-api.md) from the browser: JSON in, JSON out.

// What every page says when a request could not be sent at all (the browser's "Failed to fetch").
export const UNREACHABLE = "The server cannot be reached: check your connection, or wait for the server to come back.";

// A request's answer: {ok, status, data}; when the server could not be reached (no answer at
// all) {ok: false, status: 0, unreachable: true, data: {error: {message: UNREACHABLE}}}, never
// a thrown error. Each outcome is told to the page's service banner (service.js) by a
// "tonk-service" event on the document: {reachable: true or false}.
export async function call(method, path, { token = null, body = undefined } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (_) {
    tell(false);
    return { ok: false, status: 0, unreachable: true, data: { error: { message: UNREACHABLE } } };
  }
  tell(true);
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

function tell(reachable) {
  document.dispatchEvent(new CustomEvent("tonk-service", { detail: { reachable } }));
}

export function errorText(result) {
  const error = result.data && result.data.error;
  return error ? error.message : "the service answered HTTP " + result.status;
}

// Tokens live in this device's localStorage, one per table (a seat's) and one per table
// this device hosts: a new tab or a browser restart finds them. Never in a URL sent to the
// server, never in a cookie, never logged: they travel only in the Authorization header.
// Each tab also keeps the seat token it plays with in its own sessionStorage, so that two
// seats of one table played from one browser (two tabs, two seat links) each stay their
// seat across their reloads; a new tab takes the seat this device was given last.
const SEAT = "tonk-token:";
const HOST = "tonk-host:";

function store() {
  try {
    return window.localStorage;
  } catch (_) {
    return window.sessionStorage; // storage refused for the origin: this tab only, as before
  }
}

// This tab's own storage, or null when the browser refuses it.
function tab() {
  try {
    return window.sessionStorage;
  } catch (_) {
    return null;
  }
}

// The seat's token for `table`: taken once from a seat link's fragment (#token=..., which
// a browser never sends to the server), kept, and removed from the address bar; else the kept one.
export function tokenFor(table) {
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromLink) {
    keepToken(table, fromLink);
    history.replaceState(null, "", location.pathname + location.search);
  }
  return keptToken(table);
}

// The seat's token for `table` that this tab plays with, else the one this device was
// given last (null: none).
export function keptToken(table) {
  const mine = tab() && tab().getItem(SEAT + table);
  return mine || store().getItem(SEAT + table);
}

export function keepToken(table, token) {
  store().setItem(SEAT + table, token);
  const mine = tab();
  if (mine && mine !== store()) mine.setItem(SEAT + table, token);
}

// A seat's link: the table page with the token in the fragment (secret, like the token).
export function seatLink(table, token) {
  return location.origin + "/play/" + encodeURIComponent(table) + "#token=" + encodeURIComponent(token);
}

export function hostTokenFor(table) {
  return store().getItem(HOST + table);
}

export function keepHostToken(table, token) {
  store().setItem(HOST + table, token);
}
