import { createStratboxClient } from '@stratbox/client';
import { type FormEvent, useState } from 'react';
import { useSession } from '../session/session-context.js';
import { ErrorBanner } from '../ui/error-banner.js';
import { useAction } from '../ui/use-action.js';
import { FirstRunHelp } from './first-run-help.js';

/** Sign in with an API key: the key is checked with one call before the session is kept. */
export function SignInPage() {
  const { signIn } = useSession();
  const [baseUrl, setBaseUrl] = useState(window.location.origin);
  const [apiKey, setApiKey] = useState('');
  const check = useAction();
  const { error, busy } = check;

  async function submit(event: FormEvent) {
    event.preventDefault();
    const session = { baseUrl: baseUrl.trim().replace(/\/+$/, ''), apiKey: apiKey.trim() };
    const client = createStratboxClient(session);
    await check.run(async () => {
      await client.strategies.list({ query: { limit: 1 } });
      signIn(session);
    });
    client.realtime.close();
  }

  return (
    <main className="sign-in">
      <h1>Stratbox</h1>
      <form className="card" onSubmit={submit} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">Sign in</h2>
        <ErrorBanner error={error} title="Could not sign in" />
        <label htmlFor="base-url">Server</label>
        <input id="base-url" type="url" required value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          required
          autoComplete="off"
          spellCheck={false}
          placeholder="sbx_..."
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <FirstRunHelp />
    </main>
  );
}
