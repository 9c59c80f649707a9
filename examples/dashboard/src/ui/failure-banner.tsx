import type { ReactNode } from 'react';

/**
 * Why a record failed, as the service stored it: the title, then its code and message (`FAILED`
 * and "No reason was given." when it stored none), then `children` (what to do about it).
 * Announced to screen readers.
 */
export function FailureBanner({
  title,
  error,
  children,
}: {
  title: string;
  error: { code: string; message: string } | null | undefined;
  children?: ReactNode;
}) {
  return (
    <div className="error-banner" role="alert">
      <p className="error-title">{title}</p>
      <p>
        <code className="error-code">{error?.code ?? 'FAILED'}</code> {error?.message ?? 'No reason was given.'}
        {children ? <> {children}</> : null}
      </p>
    </div>
  );
}
