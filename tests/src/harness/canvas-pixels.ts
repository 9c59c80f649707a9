import type { Locator } from 'playwright-core';

/**
 * Pixels of colour (red, green or blue clearly above the others: series, candles and markers,
 * not the grey grid, axes and text) over every canvas inside `figure`, read back from the
 * canvases themselves.
 */
export async function colouredPixels(figure: Locator): Promise<number> {
  return figure.evaluate((element) => {
    let count = 0;
    for (const canvas of Array.from(element.querySelectorAll('canvas'))) {
      if (canvas.width === 0 || canvas.height === 0) continue;
      const context = canvas.getContext('2d');
      if (!context) continue;
      const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
      for (let i = 0; i < data.length; i += 4) {
        const r = data[i]!;
        const g = data[i + 1]!;
        const b = data[i + 2]!;
        if (data[i + 3]! > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 60) count++;
      }
    }
    return count;
  });
}
