/** The page shown without a valid session: a token form and nothing else (no question data, no inline script). */
export type LoginProblem = "none" | "wrong-token" | "query-token" | "revoked" | "locked-out" | "not-a-person";

const MESSAGES: Record<LoginProblem, string> = {
  none: "Enter the gateway token, or your personal token, to open the Control UI.",
  "wrong-token": "That token is not right. Check GATEWAY_TOKEN (or DATA_DIR/gateway-token), or your personal token, and try again.",
  revoked: "That token was revoked. Ask for a new one (ask-user-bridge token create --role person).",
  "locked-out": "Too many wrong tokens from this address: wait a little, then try again.",
  "not-a-person": "That token is an agent's or a bot's: the Control UI takes the gateway token or a person's token.",
  "query-token":
    "A token in the address (?token=) no longer signs in: it ends up in browser history and proxy logs. Enter it below, or open /#token=… (after a #, which never leaves the browser).",
};

/**
 * sign-in.js (same origin, so the policy allows it) signs in from a `/#token=…` link: the fragment is never sent to
 * the gateway or a proxy, and the script clears it from the address bar before posting the form.
 */
export function renderLoginPage(problem: LoginProblem): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sign in · ask-user-bridge</title>
<link rel="icon" href="/ui/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/ui/app.css">
<script type="module" src="/ui/sign-in.js"></script>
</head>
<body class="login">
<main class="login-card">
<h1>ask-user-bridge</h1>
<p class="${problem === "none" ? "login-hint" : "login-error"}" role="${problem === "none" ? "note" : "alert"}">${MESSAGES[problem]}</p>
<form method="post" action="/login" autocomplete="off" id="sign-in">
<label for="token">Gateway token</label>
<input id="token" name="token" type="password" required minlength="16" maxlength="512" autofocus spellcheck="false">
<button type="submit" class="primary">Open</button>
</form>
</main>
</body>
</html>
`;
}
