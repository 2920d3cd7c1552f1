import { StartupError } from '../core/errors';
import { expiryOf } from '../plugins/tokens';
import { type Command, UsageError } from './command';
import { idList, parseOptions, siteOptions, siteOptionsHelp } from './options';
import { type CommandLineService, describeLimits, withPluginService } from './plugin-service';

type Tokens = CommandLineService<'tokens'>;

const usage = [
  'Usage: ogserve token create --name NAME --role ROLE [--center IDS] [--room IDS] [--shell] [--expires 30d] [--config FILE] [--state-dir DIR]',
  '       ogserve token list [--config FILE] [--state-dir DIR]',
  '       ogserve token revoke NAME [--config FILE] [--state-dir DIR]',
  '',
  'API tokens besides rest.api_token, kept in the database of the config given (only a hash',
  'of each secret). ROLE is reader, operator, imager or admin; --shell adds running shell',
  'commands; --center and --room (ids, comma-separated) limit the token to those centers and',
  'rooms; --expires takes days, hours or minutes (30d, 12h, 90m). `create` prints the',
  'secret on stdout once: it cannot be shown again. A running server sees a token made or',
  'revoked here within a second (a SQLite database is locked while ogserve runs: use',
  'POST /tokens and DELETE /tokens there).',
  '',
  'Options:',
  ...siteOptionsHelp,
].join('\n');

/** `ogserve token create|list|revoke`: the tokens plugin's store, on the config's database. */
export const token: Command = {
  name: 'token',
  summary: 'create, list or revoke API tokens',
  usage,
  async run(args) {
    const [action, ...rest] = args;
    if (action === 'create') return create(rest);
    if (action === 'list') return withStore(parseOptions(rest, { values: siteOptions }), list);
    if (action === 'revoke') {
      const options = parseOptions(rest, { values: siteOptions });
      if (options.positional.length !== 1) throw new UsageError('token revoke needs the name of one token');
      return withStore(options, (store) => revoke(store, options.positional[0]!));
    }
    throw new UsageError(action === undefined ? 'token needs an action: create, list or revoke' : `unknown token action '${action}'`);
  },
};

async function create(args: string[]): Promise<number> {
  const options = parseOptions(args, {
    values: { ...siteOptions, '--name': [], '--role': [], '--expires': [], '--center': [], '--room': [] },
    flags: ['--shell'],
  });
  if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
  const name = options.values['--name'];
  const role = options.values['--role'];
  if (!name) throw new UsageError('token create needs --name');
  if (!role) throw new UsageError('token create needs --role (reader, operator, imager or admin)');
  const expires = options.values['--expires'];
  const expiresAt = expires === undefined ? null : expiryOf(expires, Date.now());
  if (expiresAt === undefined) throw new UsageError('--expires takes days, hours or minutes: 30d, 12h, 90m');
  const centers = idList(options.values['--center'], '--center');
  const rooms = idList(options.values['--room'], '--room');
  return withStore(options, async (store) => {
    const { view, secret } = await store.create({ name, role, shell: options.flags.has('--shell'), expiresAt, centers, rooms });
    process.stderr.write(`created ${describe(view)}; the secret follows, it is not shown again\n`);
    process.stdout.write(`${secret}\n`);
    return 0;
  });
}

async function list(store: Tokens): Promise<number> {
  const tokens = await store.list();
  if (tokens.length === 0) process.stderr.write('no tokens (rest.api_token is an admin key of its own)\n');
  for (const view of tokens) process.stdout.write(`${describe(view)}\n`);
  return 0;
}

async function revoke(store: Tokens, name: string): Promise<number> {
  if (!(await store.revoke(name))) throw new StartupError(`no token named '${name}'`);
  process.stderr.write(`revoked ${name}\n`);
  return 0;
}

function describe(view: Awaited<ReturnType<Tokens['list']>>[number]): string {
  const permissions = view.shell ? `${view.role}+shell` : view.role;
  const scope = describeLimits(view);
  const owner = view.owner ? `  made by ${view.owner}` : '';
  return `${view.name}  ${permissions}  created ${view.created}  expires ${view.expires ?? 'never'}  last used ${view.last_used ?? 'never'}${scope}${owner}`;
}

function withStore(options: { values: Record<string, string> }, fn: (store: Tokens) => Promise<number>): Promise<number> {
  return withPluginService(options, 'tokens', 'tokens', fn);
}
