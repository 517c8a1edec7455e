/** The wire: method params, frames, events and the payload types that the gateway and its clients share. */
export * from "./methods.ts";
export type { ReplyOutcome } from "./reply-outcome.ts";
export type { ListFilter } from "./list-filter.ts";
export type { ClaimOutcome } from "./claim.ts";
