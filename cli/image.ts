import { StartupError } from '../core/errors';
import { type Command, UsageError } from './command';
import { parseOptions, siteOptions, siteOptionsHelp } from './options';
import { withPluginService } from './plugin-service';

const usage = [
  'Usage: ogserve image pull URL --name NAME [--repository ID] [--config FILE] [--state-dir DIR]',
  '',
  'Pull an image from another ogserve: URL is its file there, http://<site>:8888/images/files/<name>.img.',
  'It is fetched into repository.directory/.pull/ (a pull cut off, killed or refused by a',
  'busy source resumes where it stopped when run again), hashed once whole, and kept as image',
  "NAME only when its sha256 is the one the source's record names (its Repr-Digest header):",
  'a partial or different file is never kept as an image. --repository is the id of the',
  'repository it belongs to (needed when there are several). A SQLite database is locked while',
  'ogserve runs: use POST /image/pull there.',
  '',
  'Options:',
  ...siteOptionsHelp,
].join('\n');

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** `ogserve image pull`: the images plugin's puller, on the config's repository and database. */
export const image: Command = {
  name: 'image',
  summary: "pull an image from another ogserve's /images/files",
  usage,
  async run(args) {
    const [action, ...rest] = args;
    if (action !== 'pull') throw new UsageError(action === undefined ? 'image needs an action: pull' : `unknown image action '${action}'`);
    const options = parseOptions(rest, { values: { ...siteOptions, '--name': [], '--repository': [] } });
    if (options.positional.length !== 1) throw new UsageError('image pull needs the URL of one image file');
    const name = options.values['--name'];
    if (!name) throw new UsageError('image pull needs --name (the image name here)');
    const repository = options.values['--repository'];
    if (repository !== undefined && !/^[1-9][0-9]{0,9}$/.test(repository)) throw new UsageError('--repository takes a repository id');
    const url = options.positional[0]!;
    return withPluginService(options, 'images', 'imagePuller', async (puller) => {
      const started = Date.now();
      const say = (view: { bytes: number; size: number }) =>
        process.stderr.write(
          `${name}: ${mib(view.bytes)} of ${mib(view.size)} MiB (${mib((view.bytes * 1000) / Math.max(1, Date.now() - started))} MiB/s)\n`,
        );
      // A refusal or a cut is one line: the partial file is kept (or not) as the message says.
      const id = await puller
        .pull({ url, name, repositoryId: repository === undefined ? undefined : Number(repository) }, say)
        .catch((error: Error) => {
          throw error.name === 'HttpError' ? error : new StartupError(`image ${name} not pulled: ${error.message}`);
        });
      process.stderr.write(`pulled ${name} (image ${id}) from ${url}, its sha256 checked\n`);
      return 0;
    });
  },
};
