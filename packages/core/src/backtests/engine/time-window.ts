/** A half-open span of time `[start, end)`, epoch ms. */
export interface TimeWindow {
  start: number;
  end: number;
}
