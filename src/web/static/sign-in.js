/**
 * The sign-in page's only script. A link of the form `/#token=…` signs in without the token ever being part of a
 * request URL: the fragment stays in the browser (no server or proxy log, no Referer). It is wiped from the address
 * bar at once, then posted like the form (POST /login), which answers with the session cookie. A `?token=` left in
 * the address by an old link is wiped the same way; it never signs in.
 */
function signInFromAddress() {
  const form = document.getElementById("sign-in");
  const input = document.getElementById("token");
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get("token")?.trim();
  if (fragment.has("token") || new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);
  if (token && form instanceof HTMLFormElement && input instanceof HTMLInputElement) {
    input.value = token;
    form.requestSubmit();
  }
}

signInFromAddress();
window.addEventListener("hashchange", signInFromAddress);
