import { useState } from 'react';

/**
 * A new webhook channel's signing secret, shown this once: the service keeps it encrypted and
 * never returns it again. A copy button puts it on the clipboard; "Done" hides it for good.
 */
export function SigningSecret({ label, secret, onDone }: { label: string; secret: string; onDone(): void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  }
  return (
    <section className="card signing-secret" role="alert" aria-labelledby="signing-secret-title">
      <h2 id="signing-secret-title">Signing secret of “{label}”</h2>
      <p>
        <strong>Copy it now: you will not see this secret again.</strong> Your receiver checks each delivery's <code>Stratbox-Signature</code> header with it
        (see docs/notifications.md, or <code>verifyWebhook</code> of @stratbox/client).
      </p>
      <div className="form-row">
        <input className="grow secret-value" readOnly value={secret} aria-label="Signing secret" onFocus={(e) => e.target.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" className="primary" onClick={onDone}>
          I have saved it
        </button>
      </div>
      <p className="small" aria-live="polite">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: select the secret and copy it.' : null}
      </p>
    </section>
  );
}
