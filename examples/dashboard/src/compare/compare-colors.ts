/** The colour of each compared run, in the chart and its legend (distinct for colour-blind readers: blue and orange). */
export const RUN_COLORS = { a: '#2563eb', b: '#c2410c' } as const;
