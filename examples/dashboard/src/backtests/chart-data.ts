/** Chart time: whole seconds since the epoch (lightweight-charts' `UTCTimestamp`). */
export function toSeconds(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

/**
 * An equity curve as chart points, in strictly increasing time (a chart needs that): of points
 * at the same second the last one stays.
 */
export function equitySeries(points: Array<{ time: string; equity: number }>): Array<{ time: number; value: number }> {
  const out: Array<{ time: number; value: number }> = [];
  for (const point of points) {
    const time = toSeconds(point.time);
    const last = out.at(-1);
    if (last && last.time >= time) {
      if (last.time === time) last.value = point.equity;
      continue;
    }
    out.push({ time, value: point.equity });
  }
  return out;
}

/**
 * A curve that may lack values (`null`: no value there) as chart points in strictly increasing
 * seconds: a missing value is a point without one, so the line breaks there instead of joining
 * its neighbours.
 */
export function gappedSeries(points: Array<{ time: string; equity: number | null }>): Array<{ time: number; value?: number }> {
  const out: Array<{ time: number; value?: number }> = [];
  for (const point of points) {
    const time = toSeconds(point.time);
    const next = point.equity === null ? { time } : { time, value: point.equity };
    const last = out.at(-1);
    if (last && last.time >= time) {
      if (last.time === time) out[out.length - 1] = next;
      continue;
    }
    out.push(next);
  }
  return out;
}

/** The drawdown under an equity series: percent below the highest equity so far (0 at a new high, negative below). */
export function drawdownSeries(equity: Array<{ time: number; value: number }>): Array<{ time: number; value: number }> {
  let peak = Number.NEGATIVE_INFINITY;
  return equity.map(({ time, value }) => {
    peak = Math.max(peak, value);
    return { time, value: peak > 0 ? (value / peak - 1) * 100 : 0 };
  });
}
