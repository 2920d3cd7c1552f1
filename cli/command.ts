/**
 * One subcommand of the `ogserve` program. `run` gets the arguments after the command name
 * and answers the exit code; it writes its own output. Errors the user can fix are thrown
 * as UsageError (exit 2, with a hint to --help) or StartupError (exit 1), one line each.
 */
export interface Command {
  name: string;
  /** One line for `ogserve --help`. */
  summary: string;
  /** The full text of `ogserve <name> --help`. */
  usage: string;
  run(args: string[]): Promise<number>;
}

/** A command line the program cannot make sense of. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
