import { type Command, UsageError } from './command';
import { parseOptions } from './options';
import { createApp } from './config';

/** `ogserve [serve] [--config FILE]`: run the service until SIGTERM or SIGINT. */
export const serve: Command = {
  name: 'serve',
  summary: 'run the service',
  usage: [
    'Usage: ogserve [serve] [--config FILE] [--state-dir DIR]',
    '',
    "Runs the service until SIGTERM or SIGINT; SIGHUP reads rest.tls's certificate and key again.",
    '',
    'Options:',
    '  -f, --config FILE    merge FILE over config/default.json (a reference ogserver.json works as it is);',
    '                       default: $OGSERVE_CONFIG (the Debian package sets /etc/ogserve/ogserve.json), else none',
    '  -s, --state-dir DIR  where relative data paths of the defaults go (database, API key, boot files);',
    '                       default: $OGSERVE_STATE_DIR, else $STATE_DIRECTORY (systemd), else var/ of the install',
    '',
    'Environment:',
    '  OGSERVE_<SECTION>__<KEY>=value  overrides a config key (OGSERVE_REST__PORT=9000, OGSERVE_PXE_MODES__BIOS_DIR=...)',
  ].join('\n'),
  async run(args) {
    const options = parseOptions(args, { values: { '--config': ['-f', '--config-file'], '--state-dir': ['-s'] } });
    if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
    const app = await createApp({ configFile: options.values['--config'], stateDir: options.values['--state-dir'] });
    let stopping = false;
    const stopped = new Promise<number>((resolve) => {
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        app.log.info(`${signal} received, shutting down`);
        app.close().then(
          () => resolve(0),
          (error: unknown) => {
            app.log.error({ err: error }, 'shutdown failed');
            resolve(1);
          },
        );
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      // A renewed certificate (rest.tls) is read again without a restart: agents stay connected.
      process.on('SIGHUP', () => {
        app.log.info('SIGHUP received, reading the TLS certificate again');
        app.reloadTls();
      });
    });
    await app.listen();
    const code = await stopped;
    // Whatever a plugin left open (a timer, a socket) must not keep a stopped service alive.
    process.exit(code);
  },
};
