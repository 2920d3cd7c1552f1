import { createSocket } from 'node:dgram';
import { definePlugin } from 'ogserve';
import { NginxHandoff } from './handoff';
import { TransfersConfig } from './schemas';

/**
 * The byte path: files PCs fetch over HTTP without a key (boot files, images), served from
 * folders with the same rules whoever serves them: plain path segments, no link out of the
 * folder, RFC 9110 ranges and validators, a cap on bodies at once and a cut for a body that
 * stands still, each transfer told when it ends (bytes, time, cut short). The plugins that own
 * a public byte path (boot, images) require it and decide who gets what; the bytes go out
 * from ogserve, or from the nginx in front of it (`transfers.handoff`).
 */
export { FolderFiles, type FilesNamed, type ServedFolder, type Transfer, type TransferWatch, relativePath } from './folder-files';
export { TransferSlots, type Flow } from './transfer-slots';
export { byteRange, type RangeAnswer } from './byte-range';
export { allowList } from './allow-list';
export { fileAnswer, versionOf, type FileAnswer, type FileVersion } from './file-answer';
export { NginxHandoff, handoffLocation } from './handoff';

/** Who sends the bytes: `nginx` set when `transfers.handoff` is nginx; its log port once listening (tests). */
export class ByteSender {
  nginx?: NginxHandoff;
  logPort = 0;
}

export default definePlugin({
  name: 'transfers',
  config: TransfersConfig,
  register(ctx) {
    const sender = new ByteSender();
    ctx.provide(ByteSender, sender);
    if (ctx.config.handoff !== 'nginx') return;
    const handoff = new NginxHandoff(ctx.log);
    sender.nginx = handoff;
    const socket = createSocket('udp4');
    socket.on('message', (datagram) => handoff.receive(datagram.toString('latin1')));
    ctx.onStart(async () => {
      const listening = await ctx.listen(socket, {
        name: 'nginx transfer log',
        ip: '127.0.0.1',
        port: Number(ctx.config.handoff_log_port),
        ipKey: 'transfers.handoff_log_port',
        portKey: 'transfers.handoff_log_port',
        note: 'file bodies sent by nginx',
      });
      sender.logPort = listening.port;
    });
    ctx.onStop(() => {
      handoff.close();
      // Bound only once started: a start that failed earlier left nothing open.
      if (sender.logPort) socket.close();
    });
  },
});
