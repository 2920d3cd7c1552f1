import { StartupError } from '../core/errors';
import { type Command, UsageError } from './command';
import { idList, parseOptions, siteOptions, siteOptionsHelp } from './options';
import { type CommandLineService, describeLimits, withPluginService } from './plugin-service';
import { passwordFromStdin, passwordFromTerminal } from './password-input';

type Users = CommandLineService<'users'>;

const usage = [
  'Usage: ogserve user add NAME --role ROLE [--center IDS] [--room IDS] [--shell] [--password-stdin] [--config FILE] [--state-dir DIR]',
  '       ogserve user list [--config FILE] [--state-dir DIR]',
  '       ogserve user disable NAME | enable NAME | remove NAME [--config FILE] [--state-dir DIR]',
  '       ogserve user passwd NAME [--password-stdin] [--config FILE] [--state-dir DIR]',
  '',
  'Local users, who sign in to the console and to POST /auth/login with a password (kept as',
  'a scrypt hash in the database of the config given). ROLE is reader, operator, imager or',
  'admin; --shell adds running shell commands; --center and --room (ids, comma-separated)',
  'limit the user to those centers and rooms. The password is asked twice on the terminal,',
  'or read from the first line of standard input with --password-stdin. Make the first',
  'admin this way on a fresh install. Disabling a user, or setting their password, ends',
  'their sessions (a SQLite database is locked while ogserve runs: use the /users routes',
  'there).',
  '',
  'Options:',
  ...siteOptionsHelp,
].join('\n');

/** `ogserve user add|list|disable|enable|remove|passwd`: the auth plugin's users, on the config's database. */
export const user: Command = {
  name: 'user',
  summary: 'add, list, disable or remove the people who sign in',
  usage,
  async run(args) {
    const [action, ...rest] = args;
    if (action === 'add') return add(rest);
    if (action === 'list') return withUsers(parseOptions(rest, { values: siteOptions }), list);
    if (action === 'passwd') return passwd(rest);
    if (action === 'disable' || action === 'enable' || action === 'remove') {
      const options = parseOptions(rest, { values: siteOptions });
      const name = oneName(options.positional, action);
      return withUsers(options, async (users) => {
        const found = action === 'remove' ? await users.remove(name) : await users.setDisabled(name, action === 'disable');
        if (!found) throw new StartupError(`no user named '${name}'`);
        process.stderr.write(`${action === 'remove' ? 'removed' : `${action}d`} ${name}\n`);
        return 0;
      });
    }
    throw new UsageError(
      action === undefined ? 'user needs an action: add, list, disable, enable, remove or passwd' : `unknown user action '${action}'`,
    );
  },
};

async function add(args: string[]): Promise<number> {
  const options = parseOptions(args, {
    values: { ...siteOptions, '--role': [], '--center': [], '--room': [] },
    flags: ['--shell', '--password-stdin'],
  });
  const username = oneName(options.positional, 'add');
  const role = options.values['--role'];
  if (!role) throw new UsageError('user add needs --role (reader, operator, imager or admin)');
  const centers = idList(options.values['--center'], '--center');
  const rooms = idList(options.values['--room'], '--room');
  const password = await passwordOf(options.flags);
  return withUsers(options, async (users) => {
    const view = await users.add({ username, password, role, shell: options.flags.has('--shell'), centers, rooms });
    process.stderr.write(`added ${describe(view)}\n`);
    return 0;
  });
}

async function passwd(args: string[]): Promise<number> {
  const options = parseOptions(args, { values: siteOptions, flags: ['--password-stdin'] });
  const username = oneName(options.positional, 'passwd');
  const password = await passwordOf(options.flags);
  return withUsers(options, async (users) => {
    if (!(await users.setPassword(username, password))) throw new StartupError(`no user named '${username}'`);
    process.stderr.write(`password of ${username} set; their sessions are ended\n`);
    return 0;
  });
}

async function list(users: Users): Promise<number> {
  const all = await users.list();
  if (all.length === 0) process.stderr.write('no local users\n');
  for (const view of all) process.stdout.write(`${describe(view)}\n`);
  return 0;
}

function oneName(positional: string[], action: string): string {
  if (positional.length !== 1) throw new UsageError(`user ${action} needs the name of one user`);
  return positional[0]!;
}

function passwordOf(flags: Set<string>): Promise<string> {
  return flags.has('--password-stdin') ? passwordFromStdin() : passwordFromTerminal();
}

function describe(view: Awaited<ReturnType<Users['list']>>[number]): string {
  const rights = view.shell ? `${view.role}+shell` : view.role;
  const scope = describeLimits(view);
  return `${view.username}  ${rights}${view.disabled ? '  disabled' : ''}  created ${view.created}${scope}`;
}

function withUsers(options: { values: Record<string, string> }, fn: (users: Users) => Promise<number>): Promise<number> {
  return withPluginService(options, 'auth', 'users', fn);
}
