import { useCallback, useState } from 'react';
import { navigate } from '../routing/navigate.js';
import { routePath } from '../routing/route.js';

export interface ComparePicks {
  picked: string[];
  toggle(id: string): void;
}

/** The backtests picked for comparing: at most two, a third pick replacing the older one. */
export function useComparePicks(): ComparePicks {
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = useCallback(
    (id: string) => setPicked((previous) => (previous.includes(id) ? previous.filter((p) => p !== id) : [...previous, id].slice(-2))),
    [],
  );
  return { picked, toggle };
}

/** A row's "pick for comparing" checkbox, named by the row's label. */
export function ComparePick({ picks, id, label }: { picks: ComparePicks; id: string; label: string }) {
  return (
    <input type="checkbox" className="compare-pick" aria-label={`Compare ${label}`} checked={picks.picked.includes(id)} onChange={() => picks.toggle(id)} />
  );
}

/** "Compare" for the two picked backtests; says how many more to pick until then. */
export function CompareButton({ picks }: { picks: ComparePicks }) {
  const [a, b] = picks.picked;
  return (
    <div className="actions">
      <button type="button" disabled={!a || !b} onClick={() => a && b && navigate(routePath({ name: 'compareBacktests', a, b }))}>
        Compare
      </button>
      <span className="muted small" aria-live="polite">
        {a && b ? 'Two completed backtests picked' : `Pick ${2 - picks.picked.length} more completed backtest(s) to compare`}
      </span>
    </div>
  );
}
