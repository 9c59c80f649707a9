// A worker node that takes jobs named `hold` and never finishes them: the tests SIGKILL it.
import { createBullMqJobQueue } from '../bullmq-job-queue.js';

const [url, prefix, lockMs] = process.argv.slice(2) as [string, string, string];
const queue = createBullMqJobQueue({ connection: url, prefix, lockDurationMs: Number(lockMs), stalledIntervalMs: Number(lockMs) / 2 });
queue.process(
  'hold',
  async (job) => {
    process.stdout.write(`took ${job.id}\n`);
    await new Promise(() => {});
  },
  { concurrency: 1 },
);
process.stdout.write('ready\n');
