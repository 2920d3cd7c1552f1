import type { Command } from './command';
import { importOpengnsys } from './import-opengnsys/command';
import { serve } from './serve';
import { waitReady } from './wait-ready';

/** Every subcommand of `ogserve`, in the order `--help` lists them. */
export const commands: Command[] = [serve, importOpengnsys, waitReady];

export const defaultCommand = serve;
