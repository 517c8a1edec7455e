import { isQuestionRecord as isRecord, type QuestionRecord } from "../../record/record.ts";
import type { QuestionStore } from "../store/kit/types.ts";

type LinkMaker = (record: QuestionRecord) => QuestionRecord["links"];

/** The record with its links as they are now (none: no `links` field, whatever a store kept). */
function withLinks(record: QuestionRecord, linksFor: LinkMaker): QuestionRecord {
  const links = linksFor(record);
  // The common case, no link to add or drop: the record itself (every read and every followed change comes here).
  if (!links && record.links === undefined) return record;
  const { links: _kept, ...rest } = record;
  return links ? { ...rest, links } : rest;
}

/** Every record in a store method's result (a record, a list of them, or an outcome that carries one) gets its links. */
function linkResult(value: unknown, linksFor: LinkMaker): unknown {
  if (Array.isArray(value)) return value.map((item) => (isRecord(item) ? withLinks(item, linksFor) : item));
  if (isRecord(value)) return withLinks(value, linksFor);
  if (typeof value === "object" && value !== null && isRecord((value as { record?: unknown }).record)) {
    return { ...value, record: withLinks((value as { record: QuestionRecord }).record, linksFor) };
  }
  return value;
}

/**
 * The store as the service sees it: every record it returns carries its answer links, made afresh from the record
 * (its targets, escalated ones included, and `linksRequested`), so links are never stored and always current.
 * `create` also sets them on the record it is given, which the service announces as it is.
 */
export function withAnswerLinks(inner: QuestionStore, linksFor: LinkMaker): QuestionStore {
  const linked: QuestionStore = { ...inner };
  for (const [name, member] of Object.entries(inner)) {
    if (typeof member !== "function" || name === "onRemoteChange" || name === "onResync" || name === "close") continue;
    (linked as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
      const result: unknown = (member as (...a: unknown[]) => unknown).apply(inner, args);
      return result instanceof Promise ? result.then((value) => linkResult(value, linksFor)) : linkResult(result, linksFor);
    };
  }
  // A change another instance made may carry its record (PostgreSQL's notifications): it gets its links too.
  if (inner.onRemoteChange) {
    const follow = inner.onRemoteChange.bind(inner);
    linked.onRemoteChange = (handler) =>
      follow((change) => {
        const record = change.record && withLinks(change.record, linksFor);
        handler(record === change.record ? change : { ...change, record });
      });
  }
  linked.create = async (record, limits) => {
    const { links: _none, ...stored } = record;
    await inner.create(stored, limits);
    const links = linksFor(record);
    if (links) record.links = links;
  };
  return linked;
}
