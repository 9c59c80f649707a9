/** The small part of an incoming request an authenticator may look at. */
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
 */
export type Authenticator = (request: AuthRequest) => Promise<AuthenticatedCaller | null>;
