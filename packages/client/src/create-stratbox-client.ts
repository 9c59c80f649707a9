import {
  backtestProgressChannel,
  optimizationProgressChannel,
  type OptimizationProgressData,
  deploymentOrdersChannel,
  ErrorBody,
  NEXT_CURSOR_HEADER,
  routes,
  WS_PATH,
  type LogPage,
  type BacktestProgressData,
  type DeploymentOrderData,
  type RouteDef,
  type RouteInput,
  type RouteKey,
  type RouteOutput,
} from '@stratbox/contract';
import { StratboxClientError, codeForStatus } from './client-error.js';
import { createRealtimeClient, type RealtimeClient, type RealtimeOptions, type SubscribeOptions, type Unsubscribe } from './ws/realtime-client.js';
import type { WebSocketConstructor } from './ws/websocket-like.js';

export interface StratboxClientOptions {
  /** Where the service runs, e.g. `https://stratbox.example.com` (no trailing `/api`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** A fetch implementation; default: the global `fetch` of the browser or Node. */
  fetch?: typeof globalThis.fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Check every response against the contract (default true): drift throws instead of passing bad data on. */
  validateResponses?: boolean;
  /**
   * The WebSocket class for real-time channels; default: the global `WebSocket` (browsers,
   * Node 22+). In Node 20 pass the `ws` package's: `import { WebSocket } from 'ws'`.
   */
  WebSocket?: WebSocketConstructor;
  /** Real-time settings: `url` (default: `baseUrl` with ws(s):// and `/ws`), `reconnect`, `lingerMs`, `onError`. */
  realtime?: Partial<Omit<RealtimeOptions, 'WebSocket' | 'token'>>;
}

export interface CallOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** Routes a client calls: all but those the payment provider calls (webhooks). */
export type ClientRouteKey = { [K in RouteKey]: (typeof routes)[K] extends { auth: 'webhook' } ? never : K }[RouteKey];

type GroupOf<K extends string> = K extends `${infer G}.${string}` ? G : never;
type ActionsOf<G extends string> = ClientRouteKey extends infer K ? (K extends `${G}.${infer A}` ? A : never) : never;

/** `{}` inputs (no params, no required body) may be omitted. */
type Method<K extends RouteKey> =
  {} extends RouteInput<K>
    ? (input?: RouteInput<K>, options?: CallOptions) => Promise<RouteOutput<K>>
    : (input: RouteInput<K>, options?: CallOptions) => Promise<RouteOutput<K>>;

/** A typed method per contract route, grouped: `client.strategies.get({ params: { id } })`. */
export type StratboxClient = {
  [G in GroupOf<ClientRouteKey>]: { [A in ActionsOf<G>]: `${G}.${A}` extends RouteKey ? Method<`${G}.${A}`> : never };
} & {
  /** Call any route by its contract key. */
  call<K extends ClientRouteKey>(key: K, input: RouteInput<K>, options?: CallOptions): Promise<RouteOutput<K>>;
} & StratboxRealtimeMethods &
  StratboxPagingMethods;

/** A page of a deployment's or a backtest's log: `client.deployments.logPage`, `client.backtests.logPage`. */
export type LogPageData = LogPage;

/** Calls that read a response header as well as the body. */
export interface StratboxPagingMethods {
  deployments: {
    /**
     * One page of a deployment's log with the cursor of the next page (the `X-Next-Cursor` header
     * of `GET /api/deployments/:id/logs`, whose body stays the bare array): pass `nextCursor` back
     * as `query.cursor`; null on the last page.
     */
    logPage(input: RouteInput<'deployments.logs'>, options?: CallOptions): Promise<LogPageData>;
  };
  backtests: {
    /**
     * One page of a backtest's log (the lines its strategy wrote) with the cursor of the next page
     * (the `X-Next-Cursor` header of `GET /api/backtests/:id/logs`, whose body is the bare array,
     * as for deployments): pass `nextCursor` back as `query.cursor`; null on the last page.
     */
    logPage(input: RouteInput<'backtests.logs'>, options?: CallOptions): Promise<LogPageData>;
  };
}

/** The real-time part of the client: channels over one WebSocket, reconnected by itself. */
export interface StratboxRealtimeMethods {
  /** `client.realtime.subscribe`: events of any channel, typed by its name. */
  subscribe: RealtimeClient['subscribe'];
  /** The connection: `state`, `onStateChange`, `close()`. */
  realtime: RealtimeClient;
  backtests: {
    /** Progress events of a backtest (`backtest:<id>:progress`), ending with its final status. */
    watch(backtestId: string, handler: (event: BacktestProgressData) => void, options?: SubscribeOptions): Unsubscribe;
  };
  deployments: {
    /** Order updates of a deployment (`deployment:<id>:orders`). */
    watchOrders(deploymentId: string, handler: (event: DeploymentOrderData) => void, options?: SubscribeOptions): Unsubscribe;
  };
  optimizations: {
    /** Progress events of an optimization (`optimization:<id>:progress`): trials done, best so far, ending with its final status. */
    watch(optimizationId: string, handler: (event: OptimizationProgressData) => void, options?: SubscribeOptions): Unsubscribe;
  };
}

/** `http(s)://host/prefix` to `ws(s)://host/prefix/ws`. */
function defaultWsUrl(baseUrl: string): string {
  return baseUrl.replace(/^http(s?):\/\//i, 'ws$1://') + WS_PATH;
}

function buildPath(route: RouteDef, params: Record<string, unknown> | undefined): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null || value === '') {
      throw new StratboxClientError('VALIDATION_FAILED', `Missing path parameter ${name}`, 0);
    }
    return encodeURIComponent(String(value));
  });
}

function buildQuery(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * A typed Stratbox client for browsers and Node, built by walking the contract's route table.
 * Every failure throws a `StratboxClientError` carrying the API's error code.
 */
export function createStratboxClient(options: StratboxClientOptions): StratboxClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const validate = options.validateResponses !== false;

  /** Sends one request; resolves with the checked body and the response headers. */
  async function request(
    key: RouteKey,
    input: { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown } = {},
    callOptions: CallOptions = {},
  ): Promise<{ data: unknown; headers: Headers }> {
    const route: RouteDef = routes[key];
    const fetchImpl = options.fetch ?? globalThis.fetch;
    const url = baseUrl + buildPath(route, input.params) + buildQuery(input.query);
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...callOptions.headers };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    const hasBody = input.body !== undefined && route.body !== undefined;
    if (hasBody) headers['content-type'] = 'application/json';

    let response: Response;
    try {
      response = await fetchImpl(url, {
        method: route.method,
        headers,
        ...(hasBody ? { body: JSON.stringify(input.body) } : {}),
        ...(callOptions.signal ? { signal: callOptions.signal } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new StratboxClientError('UNAVAILABLE', `Could not reach Stratbox at ${baseUrl}: ${message}`, 0, undefined, { cause: error });
    }

    const text = await response.text();
    let data: unknown;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = undefined;
      }
    }
    if (!response.ok) {
      const parsed = ErrorBody.safeParse(data);
      if (parsed.success) {
        const { code, message, details } = parsed.data.error;
        throw new StratboxClientError(code, message, response.status, details);
      }
      throw new StratboxClientError(codeForStatus(response.status), `HTTP ${response.status} from ${route.method} ${route.path}`, response.status);
    }
    if (route.response === null) return { data: undefined, headers: response.headers };
    if (!validate) return { data, headers: response.headers };
    const parsed = route.response.safeParse(data);
    if (!parsed.success) {
      throw new StratboxClientError('INTERNAL', `Response of ${route.method} ${route.path} does not match the contract`, response.status, parsed.error.issues);
    }
    return { data: parsed.data, headers: response.headers };
  }
  const call = async (...args: Parameters<typeof request>) => (await request(...args)).data;

  const client: Record<string, Record<string, unknown>> & { call?: unknown } = {};
  for (const [key, route] of Object.entries(routes) as Array<[RouteKey, RouteDef]>) {
    if (route.auth === 'webhook') continue;
    const [group, action] = key.split('.') as [string, string];
    (client[group] ??= {})[action] = (input?: Parameters<typeof call>[1], callOptions?: CallOptions) => call(key, input, callOptions);
  }
  client.call = (key: RouteKey, input: Parameters<typeof call>[1], callOptions?: CallOptions) => call(key, input, callOptions);

  const realtime = createRealtimeClient({
    url: defaultWsUrl(baseUrl),
    ...options.realtime,
    ...(options.apiKey ? { token: options.apiKey } : {}),
    ...(options.WebSocket ? { WebSocket: options.WebSocket } : {}),
  });
  Object.assign(client, { realtime, subscribe: realtime.subscribe });
  (client.backtests ??= {}).watch = (id: string, handler: (event: BacktestProgressData) => void, subscribeOptions?: SubscribeOptions) =>
    realtime.subscribe(backtestProgressChannel(id), handler, subscribeOptions);
  (client.optimizations ??= {}).watch = (id: string, handler: (event: OptimizationProgressData) => void, subscribeOptions?: SubscribeOptions) =>
    realtime.subscribe(optimizationProgressChannel(id), handler, subscribeOptions);
  /** A log route's page: the bare array of the body and the cursor of the `X-Next-Cursor` header. */
  const logPage = async (key: 'deployments.logs' | 'backtests.logs', input: RouteInput<typeof key>, callOptions?: CallOptions): Promise<LogPageData> => {
    const { data, headers } = await request(key, input, callOptions);
    return { logs: data as LogPageData['logs'], nextCursor: headers.get(NEXT_CURSOR_HEADER) ?? null };
  };
  (client.deployments ??= {}).logPage = (input: RouteInput<'deployments.logs'>, callOptions?: CallOptions) => logPage('deployments.logs', input, callOptions);
  (client.backtests ??= {}).logPage = (input: RouteInput<'backtests.logs'>, callOptions?: CallOptions) => logPage('backtests.logs', input, callOptions);
  (client.deployments ??= {}).watchOrders = (id: string, handler: (event: DeploymentOrderData) => void, subscribeOptions?: SubscribeOptions) =>
    realtime.subscribe(deploymentOrdersChannel(id), handler, subscribeOptions);
  return client as unknown as StratboxClient;
}
