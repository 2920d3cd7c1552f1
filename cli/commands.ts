import type { Command } from './command';
import { serve } from './serve';

/** Every subcommand of `ogserve`, in the order `--help` lists them. */
export const commands: Command[] = [serve];

export const defaultCommand = serve;
