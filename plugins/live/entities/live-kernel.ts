import { EntitySchema } from '@mikro-orm/core';

/**
 * What an image's kernel (`<directory>/ogvmlinuz`) was found to be when it was last read:
 * whether its Authenticode signature verifies and signs it, by whom; `size` and `mtime` (ms)
 * of the file then, so that a kernel replaced is read again. `id` is the row's own key, as
 * every table has one (backups copy tables by it).
 */
export interface LiveKernel {
  id: number;
  directory: string;
  signed: boolean | null;
  signer: string;
  issuer: string;
  problem: string;
  size: string;
  mtime: string;
}

export const LiveKernelEntity = new EntitySchema<LiveKernel>({
  name: 'LiveKernel',
  tableName: 'live_kernels',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    directory: { type: 'string', length: 64, unique: 'live_kernels_directory_unique' },
    signed: { type: 'boolean', nullable: true },
    signer: { type: 'string', length: 255, default: '' },
    issuer: { type: 'string', length: 255, default: '' },
    problem: { type: 'string', length: 255, default: '' },
    size: { type: 'bigint', default: 0 },
    mtime: { type: 'bigint', default: 0 },
  },
});
