import { createSilentLogger, createStratbox } from '@stratbox/core';
import { readConfig } from './config.js';
import { openStore } from './open-store.js';

const USAGE = `Usage: pnpm cli <command>

Commands:
  create-user <name>   Create a user and print {"userId","apiKey"} as one JSON line.
                       The API key is shown once; only its hash is stored.

Environment: DATA_DIR (SQLite, default ./.stratbox) or DATABASE_URL (PostgreSQL), as for the server.`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command !== 'create-user' || args.length !== 1 || !args[0]) {
    process.stderr.write(USAGE + '\n');
    return command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
  const store = await openStore(readConfig());
  const stratbox = createStratbox({ store, logger: createSilentLogger() });
  try {
    const created = await stratbox.users.createUser(args[0]);
    process.stdout.write(JSON.stringify(created) + '\n');
    return 0;
  } finally {
    await stratbox.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
