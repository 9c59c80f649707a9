import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on a free port of 127.0.0.1. */
export interface LocalServer {
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Closes every connection (kept-alive ones too) and the server. */
  close(): Promise<void>;
}

/** Starts `server` on a free local port. For test fakes and test services. */
export async function listenLocally(server: Server): Promise<LocalServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
