import { readFileSync } from "node:fs";
import type { Config } from "../runtime/config.ts";
import { GatewayError } from "../kernel/errors.ts";
import { askUser } from "../client/sdk.ts";
import { parseTarget } from "../record/targets.ts";
import { EXAMPLE_TARGETS } from "../platforms/descriptors.ts";
import type { Target } from "../record/record.ts";
import { parseCommandArgs, UsageError } from "./args.ts";
import { connectFromConfig, gatewayEndpoint } from "../client/from-config.ts";
import { createAskProgress } from "./ask-progress.ts";
import { parseEscalateFlags, parseLateAnswerSeconds, parseRemindFlags } from "./follow-up-flags.ts";
import type { CliIO } from "./io.ts";
import { askInputProblems } from "./ask-input-issues.ts";

export const ASK_HELP = `Usage: ask-user-bridge ask [--to TARGET]... [--timeout SECONDS]
         (--question TEXT --option LABEL --option LABEL... [--multi] [--header TEXT] [--id KEY] | --json FILE|-)

Asks a person through the gateway, waits, and prints the result JSON.

  --to TARGET        where to ask; repeatable. SURFACE:CHAT or SURFACE:CHAT:USER+USER or web
                     (e.g. ${EXAMPLE_TARGETS.join(", ")}).
                     Default: ASK_DEFAULT_TARGETS, else the web Control UI.
  --question TEXT    the question, one sentence
  --option LABEL     an option (2-4); put the recommended one first with " (Recommended)"
  --description TEXT a description for the option before it (optional, in order)
  --multi            the person may choose several options
  --header TEXT      a short label (default "Question"); cut to 12 characters
  --id KEY           the snake_case answer key (default "answer")
  --json FILE|-      the whole ask_user input as JSON, from a file or stdin
  --timeout SECONDS  how long to wait (default 900, clamped to 30-3600)
  --run-id ID        the agent run this question belongs to
  --session KEY      the session (at most one pending question per session)
  --links            make an answer link for every target and print each on stderr ("Answer link for
                     TARGET: URL"), for you to send yourself: a one-question page at GATEWAY_PUBLIC_URL (else
                     the gateway's address) + /a/<token>, no sign-in; opening it never answers

When nobody answers (default: REMIND_BEFORE_SECONDS and LATE_ANSWER_SECONDS of the gateway):
  --remind SECONDS   remind every copy this long before expiry; repeatable (up to 5); --remind none: no reminders
  --escalate SECONDS=TARGET[,TARGET...]
                     if still unanswered after SECONDS, also ask there; repeatable (up to 3 steps),
                     e.g. --escalate 600=${EXAMPLE_TARGETS[0]}
  --late-answer-seconds N
                     how long after expiry a late answer is still taken (0: never); see "list --late"

On a terminal, stderr shows where the question was delivered, targets still being tried, the time left, and the
Control UI link for a web target. Off a terminal, stderr has only the "Asked" line; stdout has only the result.

Exit codes: 0 answered, 3 no_answer, 4 delivery_failed, 1 error.`;

function readJsonInput(source: string): unknown {
  const text = source === "-" ? readFileSync(0, "utf8") : readFileSync(source, "utf8");
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--json ${source}: not valid JSON (${(error as Error).message})`);
  }
}

/** Options and descriptions in argv order: a --description belongs to the --option before it. */
function optionsInOrder(argv: string[]): Array<{ label: string; description?: string }> {
  const options: Array<{ label: string; description?: string }> = [];
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s);
    const value = inline ?? argv[i + 1];
    if (flag === "--option" && value !== undefined) options.push({ label: value });
    if (flag === "--description" && value !== undefined) {
      const last = options.at(-1);
      if (!last) throw new UsageError("--description must follow the --option it describes");
      last.description = value;
    }
  }
  return options;
}

export async function runAsk(argv: string[], config: Config, io: CliIO): Promise<number> {
  const { values } = parseCommandArgs(argv, {
    to: { type: "string", multiple: true },
    timeout: { type: "string" },
    question: { type: "string" },
    option: { type: "string", multiple: true },
    description: { type: "string", multiple: true },
    multi: { type: "boolean" },
    header: { type: "string" },
    id: { type: "string" },
    json: { type: "string" },
    "run-id": { type: "string" },
    session: { type: "string" },
    remind: { type: "string", multiple: true },
    escalate: { type: "string", multiple: true },
    "late-answer-seconds": { type: "string" },
    links: { type: "boolean" },
  });
  if (values.help) {
    io.out(ASK_HELP);
    return 0;
  }
  let input: Record<string, unknown>;
  if (values.json !== undefined) {
    if (values.question !== undefined || values.option) throw new UsageError("use either --json or --question/--option, not both");
    const parsed = readJsonInput(values.json);
    input = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? { ...parsed } : { questions: parsed };
  } else {
    if (values.question === undefined) throw new UsageError("--question (or --json) is required");
    input = {
      questions: [
        {
          id: values.id ?? "answer",
          header: values.header ?? "Question",
          question: values.question,
          options: optionsInOrder(argv),
          ...(values.multi ? { multiSelect: true } : {}),
        },
      ],
    };
  }
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (values.timeout.trim() === "" || !Number.isFinite(seconds)) throw new UsageError(`--timeout: "${values.timeout}" is not a number of seconds`);
    input.timeoutSeconds = seconds;
  }
  const targets: Target[] | undefined = values.to?.map((text) => {
    const parsed = parseTarget(text);
    if (!parsed.ok) throw new UsageError(`--to ${parsed.message}`);
    return parsed.target;
  });

  const reminders = parseRemindFlags(values.remind);
  const escalate = parseEscalateFlags(values.escalate);
  const lateAnswerSeconds = parseLateAnswerSeconds(values["late-answer-seconds"]);

  // The contract's check, before connecting: each problem named by its flag.
  const problems = askInputProblems(input, values.json !== undefined ? "json" : "flags");
  if (problems.length > 0) throw new UsageError(problems.length === 1 ? problems[0]! : `the question is invalid: ${problems.join("; ")}`);

  const client = await connectFromConfig(config);
  const progress = io.tty?.err ? createAskProgress({ client, gatewayUrl: config.GATEWAY_PUBLIC_URL ?? gatewayEndpoint(config).url, err: io.err }) : undefined;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    let askedId: string | undefined;
    const result = await askUser(client, input, {
      signal: controller.signal,
      ...(targets ? { targets } : {}),
      ...(values["run-id"] ? { runId: values["run-id"] } : {}),
      ...(values.session ? { sessionKey: values.session } : {}),
      ...(reminders ? { reminders } : {}),
      ...(escalate ? { escalate } : {}),
      ...(lateAnswerSeconds !== undefined ? { lateAnswerSeconds } : {}),
      ...(values.links ? { links: true } : {}),
      onRequested: (question) => {
        askedId = question.id;
        io.err(`Asked ${question.id}; waiting for an answer until ${new Date(question.expiresAtMs).toISOString()} (Ctrl-C cancels).`);
        for (const link of question.links ?? []) io.err(`Answer link for ${link.target}: ${link.url}`);
        progress?.onRequested(question);
      },
    });
    io.out(JSON.stringify(result, null, 2));
    if (progress && askedId && result.status === "no_answer" && result.reason === "expired") {
      const record = await client.get(askedId).catch(() => undefined);
      if (record?.lateUntilMs) {
        io.err(`No answer in time. A late answer is still taken until ${new Date(record.lateUntilMs).toISOString()}: see "ask-user-bridge list --late".`);
      }
    }
    return result.status === "answered" ? 0 : result.status === "no_answer" ? 3 : 4;
  } catch (error) {
    if (error instanceof GatewayError && error.issues) {
      io.err(`${error.code}: ${error.issues.map((i) => `\n  ${i.path}: ${i.message}`).join("")}`);
      return 1;
    }
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress?.stop();
    client.close();
  }
}
