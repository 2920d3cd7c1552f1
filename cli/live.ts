import { type Command, UsageError } from './command';
import { parseOptions, siteOptions, siteOptionsHelp } from './options';
import { type CommandLineService, withPluginService } from './plugin-service';

type Installer = CommandLineService<'liveInstaller'>;

const usage = [
  'Usage: ogserve live install --iso FILE | --dir FOLDER [--name NAME] [--config FILE] [--state-dir DIR]',
  '       ogserve live list [--config FILE] [--state-dir DIR]',
  '       ogserve live default NAME [--config FILE] [--state-dir DIR]',
  '       ogserve live remove NAME [--config FILE] [--state-dir DIR]',
  '',
  'The ogLive images PCs boot, in live.directory of the config given, as oglivecli keeps',
  "them. `install` unpacks an ogLive ISO's ogclient/ogvmlinuz, oginitrd.img and",
  'ogclient.sqfs with bsdtar (Debian: libarchive-tools), or copies them from a folder, into',
  'ogLive-<kernel>-r<revision> (the name oglivecli gives the ISO; --name to choose another),',
  'with a SHA256SUMS manifest the server checks before serving them; a failed install leaves',
  'nothing behind. The first image installed becomes the default (the ogLive link);',
  '`default` moves the link. `remove` is refused for the default and for an image clients',
  'boot, naming them (a SQLite database is locked while ogserve runs: use POST',
  '/live/install, /live/default and /live/remove there).',
  '',
  'Options:',
  ...siteOptionsHelp,
].join('\n');

/** `ogserve live install|list|default|remove`: the live plugin's installer, on the config's live directory. */
export const live: Command = {
  name: 'live',
  summary: 'install, list, remove ogLive images and set the default',
  usage,
  async run(args) {
    const [action, ...rest] = args;
    if (action === 'install') return install(rest);
    if (action === 'list') return withInstaller(parseOptions(rest, { values: siteOptions }), list);
    if (action === 'default' || action === 'remove') {
      const options = parseOptions(rest, { values: siteOptions });
      if (options.positional.length !== 1) throw new UsageError(`live ${action} needs the name of one image`);
      const name = options.positional[0]!;
      return withInstaller(options, async (installer) => {
        if (action === 'remove') await installer.remove(name);
        else await installer.setDefault(name);
        process.stderr.write(action === 'remove' ? `removed ${name}\n` : `${name} is the default live image\n`);
        return 0;
      });
    }
    throw new UsageError(
      action === undefined ? 'live needs an action: install, list, default or remove' : `unknown live action '${action}'`,
    );
  },
};

async function install(args: string[]): Promise<number> {
  const options = parseOptions(args, { values: { ...siteOptions, '--iso': [], '--dir': [], '--name': [] } });
  if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
  const { '--iso': iso, '--dir': dir, '--name': name } = options.values;
  if ((iso === undefined) === (dir === undefined)) throw new UsageError('live install needs --iso FILE or --dir FOLDER (one of them)');
  const source: Parameters<Installer['install']>[0] = iso !== undefined ? { iso } : { dir: dir! };
  return withInstaller(options, async (installer) => {
    const entry = await installer.install(source, name);
    process.stderr.write(
      entry.signed ? `its kernel is signed by ${entry.signer}\n` : 'its kernel is not signed: Secure Boot PCs cannot boot it\n',
    );
    process.stderr.write(`installed ${entry.directory}\n`);
    return 0;
  });
}

async function list(installer: Installer): Promise<number> {
  const { live: images, default: index } = await installer.list();
  if (images.length === 0) process.stderr.write('no live images\n');
  for (const [i, e] of images.entries()) {
    const about = [e.distribution, e.kernel, e.architecture, e.revision].filter((f) => f !== '').join(' ');
    process.stdout.write(`${e.directory}  ${about}${i === index ? '  default' : ''}\n`);
  }
  return 0;
}

function withInstaller(options: { values: Record<string, string> }, fn: (installer: Installer) => Promise<number>): Promise<number> {
  return withPluginService(options, 'live', 'liveInstaller', fn);
}
