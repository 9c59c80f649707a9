import { type KeyboardEvent, type ReactNode, useRef } from 'react';

interface PageTabsProps<T extends string> {
  /** What the tabs are of, for screen readers (`Deployment`). */
  label: string;
  tabs: ReadonlyArray<{ id: T; label: string }>;
  selected: T;
  onSelect(id: T): void;
  /** The panel of the selected tab. */
  children: ReactNode;
}

/** A page's views as WAI-ARIA tabs (arrow keys move between them, Home and End to the ends); only the selected panel is drawn. */
export function PageTabs<T extends string>({ label, tabs, selected, onSelect, children }: PageTabsProps<T>) {
  const buttons = useRef<Array<HTMLButtonElement | null>>([]);
  const id = (tab: T) => `page-tab-${tab}`;
  const move = (event: KeyboardEvent, index: number) => {
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = (next + tabs.length) % tabs.length;
    onSelect(tabs[target]!.id);
    buttons.current[target]?.focus();
  };
  return (
    <div className="page-tabs">
      <div role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            key={tab.id}
            ref={(el) => {
              buttons.current[index] = el;
            }}
            type="button"
            role="tab"
            id={id(tab.id)}
            aria-selected={tab.id === selected}
            aria-controls={`${id(tab.id)}-panel`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => onSelect(tab.id)}
            onKeyDown={(e) => move(e, index)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${id(selected)}-panel`} aria-labelledby={id(selected)}>
        {children}
      </div>
    </div>
  );
}
