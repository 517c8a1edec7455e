import type { ListPage, ListQuery } from "../protocol/list-filter.ts";
import type { QuestionRecord } from "../record/record.ts";

/** Sends one protocol call; the client's `call`, or the Control UI's link. */
export type CallMethod = <T>(method: string, params: unknown) => Promise<T>;

/**
 * Every page of question.list for `query`, newest first, following `nextCursor` until the last page. Pure (no Node,
 * no zod), so the Control UI can bundle it too. A gateway without pages answers one page with everything.
 */
export async function* listPages(call: CallMethod, query: ListQuery = {}): AsyncGenerator<QuestionRecord[], void, undefined> {
  let params = query;
  for (;;) {
    const page = await call<ListPage>("question.list", params);
    yield page.questions;
    const next = page.nextCursor;
    if (next === undefined) return;
    if (next === params.cursor) throw new Error("question.list returned the same cursor twice");
    params = { ...query, cursor: next };
  }
}

/** Every record that `query` matches, page after page. */
export async function listAll(call: CallMethod, query: ListQuery = {}): Promise<QuestionRecord[]> {
  const all: QuestionRecord[] = [];
  for await (const page of listPages(call, query)) all.push(...page);
  return all;
}
