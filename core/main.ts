import { App } from './app';
import { StartupError } from './errors';

/** `node dist/core/main.js [--config FILE]`: run the service until SIGTERM or SIGINT. */
function configFileFromArgs(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--config' || arg === '-f' || arg === '--config-file') return args[i + 1];
    if (arg.startsWith('--config=')) return arg.slice('--config='.length);
  }
  return undefined;
}

async function main(): Promise<void> {
  const app = await App.create({ configFile: configFileFromArgs(process.argv.slice(2)) });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    app.log.info(`${signal} received, shutting down`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  await app.listen();
}

main().catch((error: unknown) => {
  const message = error instanceof StartupError ? error.message : ((error as Error).stack ?? String(error));
  process.stderr.write(`ogserve: ${message}\n`);
  process.exit(1);
});
