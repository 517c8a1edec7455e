// Placeholder until the gateway issue lands the real CLI.
console.log("ask-user-bridge: the gateway is not built yet.");
