/** An average rating out of 5 as stars, with the number and the count for every reader. */
export function Rating({ average, count }: { average: number | null; count: number }) {
  if (average === null || count === 0) return <span className="muted">No reviews yet</span>;
  const full = Math.round(average);
  return (
    <span className="rating">
      <span aria-hidden="true" className="stars">
        {'★'.repeat(full)}
        {'☆'.repeat(5 - full)}
      </span>{' '}
      {average.toFixed(1)} of 5 ({count} review{count === 1 ? '' : 's'})
    </span>
  );
}
