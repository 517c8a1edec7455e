import type { QuestionRecord } from "./record.ts";

/**
 * True when `incoming` must not replace `known`: a late pending copy of a record already known to be resolved (events
 * and list responses can cross). Every holder of records applies it: the bots' cache and the Control UI's state.
 */
export function isStaleCopy(known: Pick<QuestionRecord, "status"> | undefined, incoming: Pick<QuestionRecord, "status">): boolean {
  return known !== undefined && known.status !== "pending" && incoming.status === "pending";
}
