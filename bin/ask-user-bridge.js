#!/usr/bin/env node
// The CLI shim: runs the TypeScript sources through tsx, so no build step is needed after `npm install`.
import { register } from "tsx/esm/api";

register();
await import("./cli.ts");
