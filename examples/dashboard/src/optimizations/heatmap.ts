import type { OptimizationResults } from '@stratbox/client';

/** The best objective at each pair of values of two parameters. */
export type PairSensitivity = OptimizationResults['sensitivity']['pairs'][number];
/** The best and mean objective at each value of one parameter. */
export type ParamSensitivity = OptimizationResults['sensitivity']['params'][number];

/** A colour of the scale and the text colour readable on it. */
export interface Swatch {
  fill: string;
  text: string;
}

/** One cell of a heatmap: the pair of values, the best objective there (null: no feasible trial) and its colours. */
export interface HeatCell extends Swatch {
  x: string;
  y: string;
  value: number | null;
  /** The highest value of the map (every cell holding it). */
  best: boolean;
}

export interface Heatmap {
  /** The first parameter's values: the columns. */
  xs: string[];
  /** The second parameter's values: the rows, top to bottom. */
  ys: string[];
  /** `rows[j][i]`: the cell of ys[j] and xs[i]. */
  rows: HeatCell[][];
  min: number | null;
  max: number | null;
}

/** Stops of the scale, low to high (viridis): dark purple for the lowest objective, yellow for the highest. */
const STOPS: Array<[number, number, number]> = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];
/** A cell without a feasible trial. */
export const EMPTY_SWATCH: Swatch = { fill: '#f1f5f9', text: '#334155' };

const hex = (rgb: readonly number[]) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

/** WCAG relative luminance of an sRGB colour. */
export function luminance(rgb: readonly number[]): number {
  const [r, g, b] = rgb.map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two luminances. */
export function contrast(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/**
 * The colour of `value` on a scale from `min` to `max` (one value alone: the middle), and black or
 * white text, whichever contrasts more with it (always at least 4.5:1, WCAG AA).
 */
export function colourAt(value: number, min: number, max: number): Swatch {
  const t = max > min ? Math.min(1, Math.max(0, (value - min) / (max - min))) : 0.5;
  const at = t * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(at));
  const f = at - i;
  const rgb = STOPS[i]!.map((c, k) => c + (STOPS[i + 1]![k]! - c) * f);
  const l = luminance(rgb);
  return { fill: hex(rgb), text: contrast(l, 0) >= contrast(l, 1) ? '#000000' : '#ffffff' };
}

/** The cells of a 2-parameter sensitivity, rows by the second parameter's values, coloured from the lowest objective to the highest. */
export function heatmap(pair: PairSensitivity): Heatmap {
  const values = pair.best.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  const min = values.length ? Math.min(...values) : null;
  const max = values.length ? Math.max(...values) : null;
  const rows = pair.y.map((y, j) =>
    pair.x.map((x, i): HeatCell => {
      const value = pair.best[i]?.[j] ?? null;
      const swatch = value === null || min === null || max === null ? EMPTY_SWATCH : colourAt(value, min, max);
      return { x, y, value, best: value !== null && value === max, ...swatch };
    }),
  );
  return { xs: pair.x, ys: pair.y, rows, min, max };
}

export interface Bar {
  value: string;
  best: number | null;
  mean: number | null;
  trials: number;
  /** The bar's length, 0 to 1, of the best objective on a scale from min(0, lowest) to max(0, highest). */
  length: number;
}

/** The bars of a 1-parameter sensitivity: the best objective at each value, measured from zero. */
export function sensitivityBars(param: ParamSensitivity): Bar[] {
  const bests = param.values.map((v) => v.best).filter((v): v is number => v !== null && Number.isFinite(v));
  const lo = Math.min(0, ...bests);
  const hi = Math.max(0, ...bests);
  return param.values.map((v) => ({
    value: v.value,
    best: v.best,
    mean: v.mean,
    trials: v.trials,
    length: v.best === null || hi === lo ? 0 : Math.abs(v.best) / (hi - lo),
  }));
}
