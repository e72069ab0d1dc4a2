// The table service's HTTP API (docs/http-api.md) from the browser: JSON in, JSON out.

export async function call(method, path, { token = null, body = undefined } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = "Bearer " + token;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

export function errorText(result) {
  const error = result.data && result.data.error;
  return error ? error.message : "the service answered HTTP " + result.status;
}

// Seat tokens live in this tab's sessionStorage only (never in a URL, never logged).
export function tokenFor(table) {
  return sessionStorage.getItem("tonk-token:" + table);
}

export function keepToken(table, token) {
  sessionStorage.setItem("tonk-token:" + table, token);
}
