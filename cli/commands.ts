import { backup, restore } from './backup/command';
import type { Command } from './command';
import { doctor } from './doctor';
import { image } from './image';
import { importDhcpd } from './import-dhcpd';
import { importOpengnsys } from './import-opengnsys/command';
import { live } from './live';
import { plugins } from './plugins';
import { serve } from './serve';
import { token } from './token';
import { user } from './user';
import { waitReady } from './wait-ready';

/** Every subcommand of `ogserve`, in the order `--help` lists them. */
export const commands: Command[] = [
  serve,
  importOpengnsys,
  importDhcpd,
  backup,
  restore,
  token,
  user,
  live,
  image,
  plugins,
  doctor,
  waitReady,
];

export const defaultCommand = serve;
