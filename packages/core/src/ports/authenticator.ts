/**
 * The part of an incoming request every authenticator may rely on: its headers (names in
 * lower case, as Node gives them). Adapters pass their framework's whole request, which has
 * `headers` and more (the Express adapter passes Express's `Request`, with `req.user` set by a
 * host's session or Passport middleware, `req.ip`, cookies...).
 */
export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
}

export interface AuthenticatedCaller {
  userId: string;
}

/**
 * Decides who is calling. Returns the caller, or null for missing or invalid credentials
 * (the adapters answer 401). Must not throw for bad input; a thrown error is a 500.
 * Embedding hosts pass their own to reuse their sessions or tokens.
 *
 * `Request` is the request type the authenticator reads. An authenticator that reads only
 * `headers` (the default, `AuthRequest`) works with every adapter; one written for a framework
 * may ask for that framework's request instead, e.g. `Authenticator<express.Request>` reading
 * `req.user`, and is accepted by that framework's adapter only.
 */
export type Authenticator<Request extends AuthRequest = AuthRequest> = (request: Request) => Promise<AuthenticatedCaller | null>;
