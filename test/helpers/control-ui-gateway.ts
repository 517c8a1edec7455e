/**
 * What the Control UI's browser tests and the screenshot script (scripts/screenshots.ts) share: an in-process gateway
 * with the UI on SQLite (short timeouts allowed, no default targets), and the sample questions they ask.
 */
import { startGateway, type RunningGateway } from "../../src/gateway/run.ts";
import { createControlUi } from "../../src/web/index.ts";

export function startControlUiGateway(dataDir: string, token: string): Promise<RunningGateway> {
  return startGateway(
    {
      GATEWAY_HOST: "127.0.0.1",
      GATEWAY_PORT: 0,
      GATEWAY_TOKEN: token,
      DATA_DIR: dataDir,
      STORE: "sqlite",
      DELIVERY_TIMEOUT_SECONDS: 30,
      ASK_DEFAULT_TARGETS: [],
      ASK_TEST_MIN_TIMEOUT_SECONDS: 1,
    },
    { webApp: (ctx) => createControlUi(ctx) },
  );
}

/** One single-select question with descriptions. */
export const DEPLOY = {
  id: "deploy",
  header: "Deploy",
  question: "Where should I deploy?",
  options: [
    { label: "Staging (Recommended)", description: "Safe to break" },
    { label: "Production", description: "Real users" },
  ],
};

/** Three questions, the second multi-select, for the stepper. */
export const THREE = [
  { id: "env", header: "Env", question: "Which environment?", options: [{ label: "Staging" }, { label: "Production" }] },
  {
    id: "checks",
    header: "Checks",
    question: "Which checks should run?",
    multiSelect: true,
    options: [{ label: "Lint" }, { label: "Unit" }, { label: "E2E", description: "Slow, about 10 minutes" }],
  },
  {
    id: "notify",
    header: "Notify",
    question: "Who should hear about it?",
    options: [
      { label: "Nobody", description: "Stay quiet" },
      { label: "The team", description: "Post in #deploys" },
    ],
  },
];
