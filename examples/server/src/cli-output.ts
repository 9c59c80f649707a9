import cliProgress from 'cli-progress';

/*
 * What the CLI prints. stdout carries only a command's result (a table, or JSON with --json),
 * so it can be piped; progress and warnings go to stderr.
 */

/** A progress report on stderr: a bar on a terminal, else a line at every tenth of the work. */
export interface Progress {
  /** `done` of `total` units are done. */
  update(done: number, total: number): void;
  /** Ends the bar (leaves it as it is on screen). */
  stop(): void;
}

const silent: Progress = { update() {}, stop() {} };

/**
 * A progress report for `label` counted in `unit` (days, MB, bars). On a terminal it is a
 * cli-progress bar with the rate and time left; on a pipe or file (CI logs, tests) one line per
 * tenth, as `label: 40% (4/10 days)`, so the log stays short. `enabled: false`: nothing.
 */
export function createProgress(label: string, unit: string, enabled = true, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!enabled) return silent;
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      { stream, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | ETA {eta_formatted}`, hideCursor: true, clearOnComplete: false },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total) {
        if (!started) bar.start(total, done);
        else bar.setTotal(total);
        started = true;
        bar.update(done);
      },
      stop: () => started && bar.stop(),
    };
  }
  let lastTenth = -1;
  return {
    update(done, total) {
      const tenth = total > 0 ? Math.floor((done / total) * 10) : 0;
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      stream.write(`${label}: ${tenth * 10}% (${done}/${total} ${unit})\n`);
    },
    stop() {},
  };
}

/** Rows as columns padded to their widest cell; a first row is a header when `header` is set. */
export function formatTable(rows: ReadonlyArray<ReadonlyArray<string>>, header = false): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, k) => (widths[k] = Math.max(widths[k] ?? 0, cell.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, k) => (k === row.length - 1 ? cell : cell.padEnd(widths[k]!)))
      .join('  ')
      .trimEnd(),
  );
  if (header && lines.length > 0) lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  return lines.join('\n') + '\n';
}

/** Prints `value` as one JSON document, or `text()` (tables). */
export function printResult(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? JSON.stringify(value, null, 2) + '\n' : text());
}
