import type { Command } from './command';
import { importOpengnsys } from './import-opengnsys/command';
import { serve } from './serve';

/** Every subcommand of `ogserve`, in the order `--help` lists them. */
export const commands: Command[] = [serve, importOpengnsys];

export const defaultCommand = serve;
