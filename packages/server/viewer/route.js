// Where the viewer is: everything lives in the address's fragment (`#view=timeline&session=…`), so
// a view can be bookmarked or reloaded, and the fragment never reaches a server. The bearer token
// rides along in the same fragment (`#token=…`) and is carried over by every link the page makes.

export function currentRoute() {
  return Object.fromEntries(new URLSearchParams(window.location.hash.slice(1)));
}

/** A fragment for `route`, keeping the token of the current address. */
export function href(route) {
  const parameters = new URLSearchParams();
  const token = currentRoute().token;
  for (const [name, value] of Object.entries(route)) {
    if (value !== undefined && value !== null && value !== '' && value !== false) parameters.set(name, String(value));
  }
  if (token) parameters.set('token', token);
  return `#${parameters.toString()}`;
}

export function navigate(route) {
  window.location.hash = href(route);
}
