// The types of shared.js, which scripts/build.mjs bundles from src/web/browser-shared.ts.
export * from "../browser-shared.ts";
