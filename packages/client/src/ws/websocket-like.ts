/**
 * The part of a WebSocket the client uses: the browser's `WebSocket`, Node 22's global one and
 * the `ws` package's class all fit. Declared here so the client depends on no implementation.
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: WebSocketHandler | null;
  onmessage: WebSocketHandler | null;
  onclose: WebSocketHandler | null;
  onerror: WebSocketHandler | null;
}

/**
 * An event handler property. Its parameter is `never` so that every implementation's handler
 * type (browser `Event`, `ws`'s own event classes) fits; the client assigns handlers that read
 * only `data` (message), `code` and `reason` (close).
 */
export type WebSocketHandler = (event: never) => unknown;

/** A WebSocket class: `new WebSocket(url)`. */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** `readyState` of an open socket (the same in every implementation). */
export const WS_OPEN = 1;
