import dgram from 'node:dgram';
import { readdir, readlink, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { Config } from './config';
import boot from '../plugins/boot';
import live, { type PeSignature, peSignature } from '../plugins/live';
import tftp from '../plugins/tftp';
import { type Command, UsageError } from './command';
import { parseOptions } from './options';
import type { CommandLineService } from './plugin-service';

const usage = [
  'Usage: ogserve doctor boot [--config FILE] [--json]',
  '',
  "What PCs can boot from this machine as it is: the first stages found (Debian's ipxe,",
  'shim-signed and grub-efi-amd64-signed, or boot.loaders_dir) with their signatures, the',
  "live images' kernels and theirs, whether TFTP answers (ogserve's tftp plugin, or another",
  'server on its port) and whether the boot files are served over HTTP; then, for BIOS,',
  'UEFI and UEFI Secure Boot PCs, whether they can boot and what is missing. Reads the',
  'config and the files only (never the database): it runs beside a running ogserve.',
  'Exit 0 when every kind of PC can boot, 1 otherwise. --json prints the report as JSON.',
].join('\n');

/** One kind of PC, and whether it can boot with what is there. */
export interface Verdict {
  pcs: 'BIOS' | 'UEFI' | 'UEFI Secure Boot';
  can_boot: boolean;
  how: string;
  missing: string[];
}

export interface BootReport {
  loaders: {
    name: string;
    for: string;
    found: boolean;
    source?: string;
    package?: string;
    size?: number;
    signed?: boolean;
    signer?: string;
    issuer?: string;
    problem?: string;
  }[];
  live: { directory: string; default: boolean; kernel: boolean; signed: boolean; signer?: string; problem?: string }[];
  tftp: { plugin: boolean; address: string; answers: boolean; serves_first_stage: boolean };
  http: { plugin: boolean; url: string; answers: boolean; serves_first_stage: boolean };
  pcs: Verdict[];
}

/** `ogserve doctor boot`: the boot chain this machine offers, checked. */
export const doctor: Command = {
  name: 'doctor',
  summary: 'say which PCs (BIOS, UEFI, UEFI Secure Boot) can boot from this machine, and what is missing',
  usage,
  async run(args) {
    const [topic, ...rest] = args;
    if (topic !== 'boot') throw new UsageError(topic === undefined ? 'doctor needs a topic: boot' : `unknown doctor topic '${topic}'`);
    const options = parseOptions(rest, { values: { '--config': ['-f'] }, flags: ['--json'] });
    if (options.positional.length > 0) throw new UsageError(`unexpected argument '${options.positional[0]}'`);
    const report = await bootReport(options.values['--config']);
    process.stdout.write(options.flags.has('--json') ? `${JSON.stringify(report, null, 2)}\n` : describe(report));
    return report.pcs.every((v) => v.can_boot) ? 0 : 1;
  },
};

export async function bootReport(configFile: string | undefined): Promise<BootReport> {
  const config = new Config(configFile);
  const enabled = new Set(config.core.plugins);
  const bootSettings = config.section('boot', boot.config!);
  const liveSettings = config.section('live', live.config!);
  const tftpSettings = config.section('tftp', tftp.config!);
  // What `boot` gives the command line: where the first stages are found on this machine.
  const BootLoaders = boot.commandLine!.bootLoaders!;
  const found = await new BootLoaders(bootSettings.loaders_dir, bootSettings.loaders_served_dir).find();
  const loaders = found.map((l) => ({
    name: l.name,
    for: l.firmware === 'bios' ? 'BIOS' : l.firmware === 'uefi' ? 'UEFI' : 'UEFI Secure Boot',
    found: l.source !== undefined,
    ...(l.source ? { source: l.source, size: l.size } : {}),
    ...(l.package ? { package: l.package } : {}),
    ...signatureFields(l.signature),
  }));
  const images = await liveImages(liveSettings.directory);

  const tftpOn = enabled.has('tftp');
  const tftpHost = tftpSettings.ip === '0.0.0.0' ? '127.0.0.1' : tftpSettings.ip;
  const tftpPort = Number(tftpSettings.port);
  const tftpProbe = await probeTftp(tftpHost, tftpPort, 'undionly.kpxe');
  const bootOn = enabled.has('boot');
  const rest = config.core.rest;
  const url = bootSettings.public_url || `http://${rest.ip === '0.0.0.0' ? '127.0.0.1' : rest.ip}:${Number(rest.port)}`;
  const httpStatus = bootOn ? await headStatus(`${url.replace(/\/+$/, '')}/boot/files/snponly.efi`) : undefined;
  const report: BootReport = {
    loaders,
    live: images,
    tftp: {
      plugin: tftpOn,
      address: `${tftpHost}:${tftpPort}`,
      answers: tftpProbe !== 'silent',
      serves_first_stage: tftpProbe === 'served',
    },
    http: { plugin: bootOn, url: `${url}/boot/files/`, answers: httpStatus !== undefined, serves_first_stage: httpStatus === 200 },
    pcs: [],
  };
  report.pcs = verdicts(report, found);
  return report;
}

function signatureFields(signature: PeSignature | undefined): { signed?: boolean; signer?: string; issuer?: string; problem?: string } {
  if (!signature) return {};
  return {
    signed: signature.signed,
    ...(signature.signer ? { signer: signature.signer, issuer: signature.issuer } : {}),
    ...(signature.problem ? { problem: signature.problem } : {}),
  };
}

/** The ogLive images of the live directory and their kernels' signatures. */
async function liveImages(directory: string): Promise<BootReport['live']> {
  const names = (await readdir(directory).catch(() => [] as string[])).filter((n) => n.startsWith('ogLive-') && !n.endsWith('.old')).sort();
  const linked = await readlink(path.join(directory, 'ogLive')).catch(() => null);
  const images: BootReport['live'] = [];
  for (const name of names) {
    if (!(await stat(path.join(directory, name)).catch(() => null))?.isDirectory()) continue;
    const kernel = path.join(directory, name, 'ogvmlinuz');
    const present = (await stat(kernel).catch(() => null))?.isFile() === true;
    const signature = present ? await peSignature(kernel) : undefined;
    images.push({
      directory: name,
      default: linked !== null && path.basename(linked) === name,
      kernel: present,
      signed: signature?.signed === true,
      ...(signature?.signer ? { signer: signature.signer } : {}),
      ...(signature?.problem ? { problem: signature.problem } : {}),
      ...(!present ? { problem: 'no ogvmlinuz' } : {}),
    });
  }
  return images;
}

function verdicts(report: BootReport, found: Awaited<ReturnType<CommandLineService<'bootLoaders'>['find']>>): Verdict[] {
  const has = (name: string) => found.some((l) => l.name === name && l.source);
  const signedLoader = (name: string) => found.some((l) => l.name === name && l.signature?.signed);
  const tftpOk = report.tftp.answers;
  const tftpNote = `TFTP answers at ${report.tftp.address}${report.tftp.plugin ? ' (the tftp plugin)' : ' (not the tftp plugin: another server)'}`;
  const noTftp = `nothing answers TFTP at ${report.tftp.address} (enable the tftp plugin: "plugins": ["+tftp"])`;
  const script = report.http.plugin ? [] : ['the boot plugin (iPXE scripts and files over HTTP)'];

  const bios: Verdict = { pcs: 'BIOS', can_boot: false, how: '', missing: [...script] };
  if (!has('undionly.kpxe')) bios.missing.push('undionly.kpxe (apt-get install ipxe)');
  if (!tftpOk) bios.missing.push(noTftp);
  bios.can_boot = bios.missing.length === 0;
  bios.how = bios.can_boot ? `undionly.kpxe over TFTP (${tftpNote}), then iPXE's script and the ogLive over HTTP` : '';

  const uefi: Verdict = { pcs: 'UEFI', can_boot: false, how: '', missing: [...script] };
  const ipxeEfi = has('snponly.efi') ? 'snponly.efi' : has('ipxe.efi') ? 'ipxe.efi' : undefined;
  if (!ipxeEfi) uefi.missing.push('snponly.efi or ipxe.efi (apt-get install ipxe)');
  const over = [...(tftpOk ? ['TFTP'] : []), ...(report.http.serves_first_stage ? ['UEFI HTTP boot'] : [])];
  if (over.length === 0) uefi.missing.push(`${noTftp}, and no UEFI HTTP boot (the boot plugin serving ${report.http.url}snponly.efi)`);
  uefi.can_boot = uefi.missing.length === 0;
  uefi.how = uefi.can_boot ? `${ipxeEfi} over ${over.join(' or ')}, then iPXE's script and the ogLive over HTTP` : '';

  const secure: Verdict = { pcs: 'UEFI Secure Boot', can_boot: false, how: '', missing: [] };
  if (!has('shimx64.efi')) secure.missing.push('shimx64.efi (apt-get install shim-signed)');
  else if (!signedLoader('shimx64.efi')) secure.missing.push('a signed shimx64.efi (the one found is not signed)');
  if (!has('grubx64.efi')) secure.missing.push('grubx64.efi (apt-get install grub-efi-amd64-signed)');
  else if (!signedLoader('grubx64.efi')) secure.missing.push('a signed grubx64.efi (the one found is not signed)');
  if (!report.tftp.plugin || !tftpOk)
    secure.missing.push(
      `ogserve's TFTP (the tftp plugin, answering at ${report.tftp.address}): GRUB fetches its config and the ogLive over TFTP`,
    );
  const signedImages = report.live.filter((i) => i.signed).map((i) => i.directory);
  secure.can_boot = secure.missing.length === 0;
  secure.how = secure.can_boot
    ? `shimx64.efi then grubx64.efi over TFTP, GRUB reading ogserve's config and the PC's own GRUB file; ${
        signedImages.length > 0
          ? `ogLive with a signed kernel: ${signedImages.join(', ')}`
          : 'no ogLive has a signed kernel: only modes that boot the disk'
      }`
    : '';
  return [bios, uefi, secure];
}

/** Whether a TFTP server answers at host:port: it sends `file` (`served`), answers an error (`answers`), or nothing comes (`silent`). */
async function probeTftp(host: string, port: number, file: string): Promise<'served' | 'answers' | 'silent'> {
  const socket = dgram.createSocket('udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, () => resolve());
    });
    const answer = new Promise<'served' | 'answers' | 'silent'>((resolve) => {
      const timer = setTimeout(() => resolve('silent'), 1500);
      socket.on('message', (packet, from) => {
        clearTimeout(timer);
        const op = packet.readUInt16BE(0);
        // Stop the transfer: an error back to its port.
        if (op !== 5) socket.send(Buffer.from('\0\x05\0\0probe done\0', 'latin1'), from.port, from.address);
        resolve(op === 3 || op === 6 ? 'served' : 'answers');
      });
    });
    socket.send(Buffer.from(`\0\x01${file}\0octet\0tsize\x000\0`, 'latin1'), port, host);
    return await answer;
  } catch {
    return 'silent';
  } finally {
    socket.close();
  }
}

function headStatus(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    // A GET whose body is not read: its status says whether the file is served.
    const req = http.request(url, { method: 'GET', timeout: 3000 }, (res) => {
      resolve(res.statusCode);
      req.destroy();
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

function describe(report: BootReport): string {
  const lines: string[] = ['First stages:'];
  for (const l of report.loaders) {
    const where = l.found ? `${l.source}${l.package ? ` (${l.package})` : ''}` : 'not found';
    const signature =
      l.signed === undefined ? '' : l.signed ? `, signed by ${l.signer} (${l.issuer})` : `, not signed${l.problem ? `: ${l.problem}` : ''}`;
    lines.push(`  ${l.name.padEnd(14)} for ${l.for.padEnd(17)} ${where}${signature}`);
  }
  lines.push('Live images:');
  if (report.live.length === 0) lines.push('  none');
  for (const i of report.live)
    lines.push(
      `  ${i.directory}${i.default ? ' (default)' : ''}: ${i.signed ? `kernel signed by ${i.signer}` : `kernel not signed${i.problem ? `: ${i.problem}` : ''}`}`,
    );
  lines.push('Serving:');
  lines.push(
    `  TFTP at ${report.tftp.address}: ${report.tftp.answers ? 'answers' : 'no answer'}${report.tftp.plugin ? ' (tftp plugin on)' : ' (tftp plugin off)'}${report.tftp.serves_first_stage ? ', serves undionly.kpxe' : ''}`,
  );
  lines.push(
    `  HTTP at ${report.http.url}: ${!report.http.plugin ? 'boot plugin off' : report.http.answers ? `answers${report.http.serves_first_stage ? ', serves snponly.efi' : ''}` : 'no answer (ogserve not running?)'}`,
  );
  lines.push('PCs:');
  for (const v of report.pcs) {
    lines.push(`  ${v.pcs.padEnd(17)} ${v.can_boot ? `can boot: ${v.how}` : 'cannot boot'}`);
    for (const m of v.missing) lines.push(`      missing: ${m}`);
  }
  return `${lines.join('\n')}\n`;
}
