import { type CheckedClaim, describeClaims, type VerificationRecord, verifiedLabel } from './record-values.js';

function Verified({ claim, status }: { claim: CheckedClaim; status: VerificationRecord['status'] | null }) {
  const checked = claim.verified !== null;
  return <span className={`claim-verified${checked ? '' : ' unchecked'}`}>{verifiedLabel(claim, status)}</span>;
}

/**
 * The seller's description with every performance figure it states marked, the platform's
 * verified figure beside it: a buyer never reads a claimed figure without the measured one.
 */
export function ClaimedDescription({
  description,
  claims,
  status,
}: {
  description: string;
  claims: CheckedClaim[];
  status: VerificationRecord['status'] | null;
}) {
  if (!description && claims.length === 0) return <p className="muted">The seller wrote no description.</p>;
  const { parts, unplaced } = describeClaims(description, claims);
  return (
    <>
      <p className="listing-description">
        {parts.map((part, i) =>
          part.claim ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one description, in order
            <span key={i} className="claim">
              <mark>{part.text}</mark> <Verified claim={part.claim} status={status} />
            </span>
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one description, in order
            <span key={i}>{part.text}</span>
          ),
        )}
      </p>
      {claims.length > 0 ? (
        <p className="muted small">
          The seller’s figures are marked; beside each, the platform’s figure of the same kind from its own backtest of this version.
        </p>
      ) : null}
      {unplaced.length > 0 ? (
        <ul className="claims-unplaced" aria-label="Claims checked">
          {unplaced.map((claim) => (
            <li key={claim.text} className="claim">
              <mark>{claim.text}</mark> <Verified claim={claim} status={status} />
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
