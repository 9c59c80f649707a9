/** Two backtests side by side. */
export function CompareBacktestsPage({ a, b }: { a: string; b: string }) {
  return (
    <h1>
      Compare {a} and {b}
    </h1>
  );
}
