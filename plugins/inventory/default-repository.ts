import { hostAddress, type SeedContext } from 'ogserve';
import { RepositoryAddressEntity, RepositoryEntity } from './entities/repository';

/**
 * Repository 1, "Default", at the server's own address, as the reference's schema creates
 * it: ogCP's add-client form always sends `repo_id: 1`. The address is the one boot files
 * get by default: `rest.ip`, or this host's first non-loopback address when that is 0.0.0.0.
 */
export async function seedDefaultRepository(ctx: SeedContext): Promise<void> {
  const { address, how } = hostAddress(ctx.settings.rest.ip);
  const repository = ctx.em.create(RepositoryEntity, { name: 'Default', center: 1 });
  await ctx.em.flush();
  ctx.em.create(RepositoryAddressEntity, { repository, ip: address });
  await ctx.em.flush();
  ctx.log.info({ repository: repository.id, ip: address }, `created repository ${repository.id} "Default" at ${address} (${how})`);
}
