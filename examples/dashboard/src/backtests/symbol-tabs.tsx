import { type KeyboardEvent, type ReactNode, useRef } from 'react';

interface SymbolTabsProps {
  symbols: string[];
  selected: string;
  onSelect(symbol: string): void;
  /** The panel of the selected symbol. */
  children: ReactNode;
}

/** Tabs (WAI-ARIA tabs: arrow keys move between them, Home and End to the ends), one per symbol. */
export function SymbolTabs({ symbols, selected, onSelect, children }: SymbolTabsProps) {
  const tabs = useRef<Array<HTMLButtonElement | null>>([]);
  const id = (symbol: string) => `tab-${symbol.replace(/[^A-Za-z0-9]/g, '-')}`;
  const move = (event: KeyboardEvent, index: number) => {
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: symbols.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = (next + symbols.length) % symbols.length;
    onSelect(symbols[target]!);
    tabs.current[target]?.focus();
  };
  return (
    <div className="symbol-tabs">
      <div role="tablist" aria-label="Symbol">
        {symbols.map((symbol, index) => (
          <button
            key={symbol}
            ref={(el) => {
              tabs.current[index] = el;
            }}
            type="button"
            role="tab"
            id={id(symbol)}
            aria-selected={symbol === selected}
            aria-controls={`${id(symbol)}-panel`}
            tabIndex={symbol === selected ? 0 : -1}
            onClick={() => onSelect(symbol)}
            onKeyDown={(e) => move(e, index)}
          >
            {symbol}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id(selected)}-panel`} aria-labelledby={id(selected)}>
        {children}
      </div>
    </div>
  );
}
