/** One figure of the report: its name, value, and a gain/loss tone when the sign matters. */
export interface DriftCard {
  label: string;
  value: string;
  tone?: 'gain' | 'loss' | undefined;
  /** What the figure means or how to read it, under the value. */
  hint?: string | undefined;
}

/** Figures of the report as the dashboard's metric cards. */
export function DriftCards({ cards, label }: { cards: DriftCard[]; label: string }) {
  return (
    <dl className="metric-cards" aria-label={label}>
      {cards.map((card) => (
        <div className={`metric-card ${card.tone ?? ''}`.trim()} key={card.label}>
          <dt>{card.label}</dt>
          <dd>{card.value}</dd>
          {card.hint ? <dd className="muted small metric-hint">{card.hint}</dd> : null}
        </div>
      ))}
    </dl>
  );
}

/** The tone of a signed figure: gain above zero, loss below (rounded to cents first). */
export function signTone(value: number | null): 'gain' | 'loss' | undefined {
  if (value === null || Math.abs(value) < 0.005) return undefined;
  return value > 0 ? 'gain' : 'loss';
}
