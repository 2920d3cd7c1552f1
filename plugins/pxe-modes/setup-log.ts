import { stat } from 'node:fs/promises';
import type { ChosenAddress, Logger } from 'ogserve';
import type { Templates } from './templates';

/**
 * This plugin's lines of the start log: the address put in boot files and how it was
 * chosen, the folders, and how many modes the templates offer. A missing or empty template
 * folder is a warning: GET /mode would list nothing and no client could get a boot file.
 */
export async function logSetup(
  log: Logger,
  server: ChosenAddress,
  templates: Templates,
  config: { templates_dir: string; bios_dir: string; uefi_dir: string },
): Promise<void> {
  const loopback = server.address.startsWith('127.');
  (loopback ? log.warn.bind(log) : log.info.bind(log))(
    { server_ip: server.address },
    `boot-file server address ${server.address} (${server.how})${loopback ? '; PCs cannot reach it: set pxe-modes.server_ip' : ''}`,
  );
  const folder = await stat(config.templates_dir).catch(() => undefined);
  if (!folder?.isDirectory()) {
    log.warn({ templates_dir: config.templates_dir }, `pxe-modes.templates_dir: ${config.templates_dir} is missing: no boot modes`);
    return;
  }
  const modes = [...(await templates.catalog()).keys()];
  if (modes.length === 0) {
    log.warn(
      { templates_dir: config.templates_dir },
      `pxe-modes.templates_dir: ${config.templates_dir} holds no templates (bios/<mode>.ejs): no boot modes`,
    );
    return;
  }
  log.info(
    { templates_dir: config.templates_dir, modes: modes.length },
    `boot templates ${config.templates_dir}: ${modes.length} modes (${modes.join(', ')}); boot files in ${config.bios_dir} and ${config.uefi_dir}`,
  );
}
