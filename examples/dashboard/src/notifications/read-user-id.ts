/** How long the WebSocket may take to say who the key belongs to. */
const TIMEOUT_MS = 15_000;

/**
 * The id of the user an API key belongs to, as the service's WebSocket says it on sign-in (its
 * `authenticated` message): the dashboard needs it to name the `user:<id>:events` channel, and no
 * HTTP route answers it. Opens one short-lived socket to `<baseUrl>/ws`, signs in with the key's
 * first message, and closes it; rejects when the key is refused, the socket closes first, or after
 * 15 s.
 */
export function readUserId(baseUrl: string, apiKey: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = `${baseUrl.replace(/\/+$/, '').replace(/^http(s?):\/\//i, 'ws$1://')}/ws`;
    const socket = new WebSocket(url);
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      if (socket.readyState <= WebSocket.OPEN) socket.close(1000, 'Done');
      settle();
    };
    const abort = () => finish(() => reject(new DOMException('Aborted', 'AbortError')));
    const timer = setTimeout(() => finish(() => reject(new Error('The service did not say who is signed in'))), TIMEOUT_MS);
    signal?.addEventListener('abort', abort);
    socket.onopen = () => socket.send(JSON.stringify({ type: 'auth', token: apiKey }));
    socket.onmessage = (event) => {
      let message: { type?: unknown; userId?: unknown; error?: { message?: unknown } } | null = null;
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (message?.type === 'authenticated' && typeof message.userId === 'string') {
        const userId = message.userId;
        finish(() => resolve(userId));
      } else if (message?.type === 'error') {
        const reason = typeof message.error?.message === 'string' ? message.error.message : 'The WebSocket refused the API key';
        finish(() => reject(new Error(reason)));
      }
    };
    socket.onclose = (event) => finish(() => reject(new Error(`The WebSocket closed before sign-in (${event.code})`)));
  });
}
