import type { QuestionRecord } from "../../record/record.ts";
import type { GatewayEventName } from "../../protocol/index.ts";

/** `remote`: another instance committed the change (a shared store), or a resync announces it again. */
export type ServiceListener = (event: GatewayEventName, record: QuestionRecord, remote?: boolean) => void;

/** Where the service's events leave: the transports (WebSocket connections) subscribe to it. */
export interface EventPort {
  emit(event: GatewayEventName, record: QuestionRecord, remote?: boolean): void;
}

/** A simple in-process event port: every subscriber gets every event, in order. */
export function createEventHub() {
  const listeners = new Set<ServiceListener>();
  return {
    emit(event: GatewayEventName, record: QuestionRecord, remote = false): void {
      for (const listener of listeners) listener(event, record, remote);
    },
    subscribe(listener: ServiceListener): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type EventHub = ReturnType<typeof createEventHub>;
