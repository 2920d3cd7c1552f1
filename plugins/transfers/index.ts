import { definePlugin } from 'ogserve';

/**
 * The byte path: files PCs fetch over HTTP without a key (boot files, images), served from
 * folders with the same rules whoever serves them: plain path segments, no link out of the
 * folder, RFC 9110 ranges and validators, a cap on bodies at once and a cut for a body that
 * stands still, each transfer told when it ends (bytes, time, cut short). The plugins that own
 * a public byte path (boot, images) require it and decide who gets what.
 */
export { FolderFiles, type FilesNamed, type ServedFolder, type Transfer, type TransferWatch, relativePath } from './folder-files';
export { TransferSlots, type Flow } from './transfer-slots';
export { byteRange, type RangeAnswer } from './byte-range';
export { allowList } from './allow-list';
export { fileAnswer, versionOf, type FileAnswer, type FileVersion } from './file-answer';

export default definePlugin({
  name: 'transfers',
  register() {},
});
